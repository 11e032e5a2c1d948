"""WGAN with the critic's weights clipped through .data after each critic step."""
import torch
import torch.nn as nn

G = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
D = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-5)
opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-5)
for it in range(4):
    for _ in range(3):
        real = torch.randn(16, 2) + 2
        d_loss = D(G(torch.randn(16, 2)).detach()).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        for p in D.parameters():
            p.data.clamp_(-0.01, 0.01)
    g_loss = -D(G(torch.randn(16, 2))).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
