"""DQN with a replay buffer and a target network on a random-transition toy MDP."""
import random
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
OBS, ACTIONS, GAMMA = 4, 2, 0.99


def q_network():
    return nn.Sequential(nn.Linear(OBS, 64), nn.ReLU(), nn.Linear(64, ACTIONS))


class Agent:
    def __init__(self):
        self.q = q_network()
        self.target = q_network()
        self.target.load_state_dict(self.q.state_dict())
        self.opt = torch.optim.Adam(self.q.parameters(), lr=1e-3)
        self.buffer = deque(maxlen=1000)

    def act(self, obs, eps=0.1):
        if random.random() < eps:
            return random.randrange(ACTIONS)
        with torch.no_grad():
            return self.q(obs).argmax().item()

    def td_loss(self, obs, actions, rewards, next_obs, dones):
        q_sa = self.q(obs).gather(1, actions.unsqueeze(1))
        with torch.no_grad():
            target = rewards + GAMMA * (1 - dones) * self.target(next_obs).max(1).values
        return F.smooth_l1_loss(q_sa, target)

    def learn(self, bs=32):
        batch = random.sample(self.buffer, bs)
        obs, a, r, nxt, d = (torch.stack(x) if isinstance(x[0], torch.Tensor) else torch.tensor(x)
                             for x in zip(*batch))
        loss = self.td_loss(obs, a, r.float(), nxt, d.float())
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


agent = Agent()
obs = torch.randn(OBS)
for t in range(300):
    action = agent.act(obs)
    next_obs = torch.randn(OBS)
    reward = float(action == (obs[0] > 0))
    agent.buffer.append((obs, action, reward, next_obs, float(t % 50 == 49)))
    obs = next_obs
    if len(agent.buffer) >= 64:
        loss = agent.learn()
        if t % 50 == 0:
            agent.target.load_state_dict(agent.q.state_dict())
            print(t, round(loss, 4))
