"""Advantage actor-critic with separate actor and critic optimizers."""
import gymnasium as gym
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class Actor(nn.Module):
    def __init__(self, obs, act):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs, 128), nn.ReLU(), nn.Linear(128, act))

    def forward(self, s):
        return Categorical(logits=self.net(s))


class Critic(nn.Module):
    def __init__(self, obs):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs, 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, s):
        return self.net(s).squeeze(-1)


env = gym.make("CartPole-v1")
actor, critic = Actor(4, 2), Critic(4)
actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
gamma = 0.99

for episode in range(500):
    state, _ = env.reset()
    done = False
    episode_return = 0.0
    while not done:
        s = torch.as_tensor(state, dtype=torch.float32)
        dist = actor(s)
        action = dist.sample()
        next_state, reward, terminated, truncated, _ = env.step(action.item())
        done = terminated or truncated
        value = critic(s)
        with torch.no_grad():
            next_value = critic(torch.as_tensor(next_state, dtype=torch.float32))
            target = reward + gamma * next_value * (1 - float(terminated))
        advantage = (target - value).detach()
        critic_loss = F.mse_loss(value, target)
        critic_opt.zero_grad()
        critic_loss.backward()
        critic_opt.step()
        actor_loss = -dist.log_prob(action) * advantage
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        episode_return += reward
        state = next_state
    if episode % 20 == 0:
        print(f"episode {episode} return {episode_return:.1f}")
