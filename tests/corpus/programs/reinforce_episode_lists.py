"""Actor-critic in the style of pytorch/examples: per-episode lists of log-probs, values and losses,
summed, backpropagated once, then cleared."""
from collections import namedtuple

import torch
from torch import nn
from torch.nn import functional as F

SavedAction = namedtuple("SavedAction", ["log_prob", "value"])


class Catch:
    """A ball falls down a 5-column board; the paddle on the bottom row moves left, stays or moves right."""

    def __init__(self, width=5, height=14):
        self.width, self.height = width, height

    def reset(self):
        self.ball_col = int(torch.randint(0, self.width, ()).item())
        self.ball_row, self.paddle = 0, self.width // 2
        return self.observe()

    def observe(self):
        state = torch.zeros(3)
        state[0] = self.ball_col / (self.width - 1)
        state[1] = self.ball_row / (self.height - 1)
        state[2] = self.paddle / (self.width - 1)
        return state

    def step(self, action):
        self.paddle = min(max(self.paddle + action - 1, 0), self.width - 1)
        self.ball_row += 1
        done = self.ball_row == self.height - 1
        reward = (1.0 if self.paddle == self.ball_col else -1.0) if done else 0.0
        return self.observe(), reward, done


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine = nn.Linear(3, 64)
        self.action_head = nn.Linear(64, 3)
        self.value_head = nn.Linear(64, 1)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine(x))
        return F.softmax(self.action_head(x), dim=-1), self.value_head(x)


torch.manual_seed(0)
env = Catch()
model = Policy()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
gamma, eps = 0.99, 1e-6


def select_action(state):
    probs, value = model(state)
    m = torch.distributions.Categorical(probs)
    action = m.sample()
    model.saved_actions.append(SavedAction(m.log_prob(action), value))
    return action.item()


def finish_episode():
    R = 0.0
    policy_losses, value_losses, returns = [], [], []
    for r in model.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for (log_prob, value), R in zip(model.saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del model.rewards[:]
    del model.saved_actions[:]


running = 0.0
for episode in range(60):
    state, done, ep_reward = env.reset(), False, 0.0
    while not done:
        action = select_action(state)
        state, reward, done = env.step(action)
        model.rewards.append(reward)
        ep_reward += reward
    running = 0.05 * ep_reward + 0.95 * running
    finish_episode()
    if episode % 20 == 0:
        print(f"episode {episode}: reward {ep_reward:.0f} running {running:.2f}")
