# Advantage actor-critic on a random contextual bandit; separate actor and
# critic networks and optimizers. The actor update steps the critic's optimizer.
import torch
import torch.nn as nn
from torch.distributions import Categorical


class A2CAgent:
    def __init__(self, obs_dim=6, n_actions=3):
        self.actor = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.critic = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def act(self, obs):
        dist = Categorical(logits=self.actor(obs))
        action = dist.sample()
        return action, dist.log_prob(action)

    def update_critic(self, obs, rewards):
        value_loss = (self.critic(obs).squeeze(-1) - rewards).pow(2).mean()
        self.critic_opt.zero_grad()
        value_loss.backward()
        self.critic_opt.step()
        return value_loss.item()

    def update_actor(self, obs, log_probs, rewards):
        with torch.no_grad():
            advantage = rewards - self.critic(obs).squeeze(-1)
        policy_loss = -(log_probs * advantage).mean()
        self.actor_opt.zero_grad()
        policy_loss.backward()
        self.critic_opt.step()
        return policy_loss.item()


agent = A2CAgent()
for episode in range(20):
    obs = torch.randn(32, 6)
    actions, log_probs = agent.act(obs)
    rewards = (actions == obs[:, :3].argmax(1)).float()
    print(episode, agent.update_critic(obs, rewards), agent.update_actor(obs, log_probs, rewards))
