"""DQN agent with a replay buffer and a periodically synced target network."""
import random
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F


class QNet(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, n_actions))

    def forward(self, x):
        return self.net(x)


class ReplayBuffer:
    def __init__(self, capacity=5000):
        self.buf = deque(maxlen=capacity)

    def push(self, *transition):
        self.buf.append(transition)

    def sample(self, n):
        batch = random.sample(self.buf, n)
        return [torch.stack(t) if isinstance(t[0], torch.Tensor) else torch.tensor(t) for t in zip(*batch)]


class DQNAgent:
    def __init__(self, gamma=0.99, lr=1e-3, sync_every=50):
        self.q, self.q_target = QNet(), QNet()
        self.q_target.load_state_dict(self.q.state_dict())
        self.optimizer = torch.optim.Adam(self.q.parameters(), lr=lr)
        self.gamma, self.sync_every, self.steps = gamma, sync_every, 0

    def act(self, obs, eps):
        if random.random() < eps:
            return random.randrange(2)
        with torch.no_grad():
            return int(self.q(obs).argmax())

    def learn(self, batch):
        obs, act, rew, obs2, done = batch
        q = self.q(obs).gather(1, act.long().unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            target = rew + self.gamma * (1 - done) * self.q_target(obs2).max(1).values
        loss = F.smooth_l1_loss(q, target)
        loss.backward()
        nn.utils.clip_grad_norm_(self.q.parameters(), 10.0)
        self.optimizer.step()
        self.steps += 1
        if self.steps % self.sync_every == 0:
            self.q_target.load_state_dict(self.q.state_dict())
        return loss.item()


if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    agent, buffer = DQNAgent(), ReplayBuffer()
    obs = torch.randn(4)
    for t in range(300):
        a = agent.act(obs, eps=max(0.05, 1 - t / 200))
        obs2 = obs + 0.1 * torch.randn(4)
        r = float(obs2[0] * (1 if a else -1))
        buffer.push(obs, a, r, obs2, 0.0)
        obs = obs2 if t % 50 else torch.randn(4)
        if len(buffer.buf) >= 64:
            agent.learn(buffer.sample(32))
    print("steps", agent.steps)
