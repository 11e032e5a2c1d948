# PPO-style value-network regression in a small agent class; clip_grad_value_
# runs before the backward pass that produces the gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ValueAgent:
    def __init__(self, obs_dim=8, clip_value=0.5):
        self.value_net = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                                       nn.Linear(64, 1))
        self.opt = torch.optim.Adam(self.value_net.parameters(), lr=3e-4)
        self.clip_value = clip_value

    def returns(self, rewards, gamma=0.99):
        out, running = torch.zeros_like(rewards), 0.0
        for t in reversed(range(len(rewards))):
            running = rewards[t] + gamma * running
            out[t] = running
        return out

    def update(self, obs, rewards, epochs=4):
        target = self.returns(rewards)
        for _ in range(epochs):
            value = self.value_net(obs).squeeze(-1)
            loss = F.mse_loss(value, target)
            self.opt.zero_grad()
            nn.utils.clip_grad_value_(self.value_net.parameters(), self.clip_value)
            loss.backward()
            self.opt.step()
        return loss.item()


agent = ValueAgent()
for episode in range(10):
    obs, rewards = torch.randn(50, 8), torch.randn(50)
    print(episode, agent.update(obs, rewards))
