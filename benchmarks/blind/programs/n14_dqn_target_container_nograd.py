# Correct: DQN update; targets computed under no_grad and passed through a dict, Q-values with grad.
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
GAMMA = 0.99

q_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
target_net = copy.deepcopy(q_net)
optimizer = torch.optim.Adam(q_net.parameters(), lr=1e-3)


def sample_replay(n=32):
    return {"s": torch.randn(n, 4), "a": torch.randint(0, 2, (n,)), "r": torch.rand(n),
            "s2": torch.randn(n, 4), "done": (torch.rand(n) < 0.1).float()}


def compute_targets(batch):
    next_q = target_net(batch["s2"]).max(dim=1).values
    return {"y": batch["r"] + GAMMA * (1 - batch["done"]) * next_q, "next_q": next_q}


for step in range(30):
    batch = sample_replay()
    with torch.no_grad():
        targets = compute_targets(batch)
    q = q_net(batch["s"]).gather(1, batch["a"].unsqueeze(1)).squeeze(1)
    loss = F.smooth_l1_loss(q, targets["y"])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 9:
        target_net.load_state_dict(q_net.state_dict())
    print(f"step {step} td_loss {loss.item():.4f} next_q {targets['next_q'].mean().item():.3f}")
