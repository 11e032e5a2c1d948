"""WGAN on 2-D points with weight clipping on the critic."""
import torch
import torch.nn as nn

G = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
D = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-5)
opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-5)
clip_value = 0.01


def clip_critic(critic, c):
    for w in critic.parameters():
        w.clamp_(-c, c)


for it in range(4):
    for _ in range(3):
        real = torch.randn(16, 2) + 2
        fake = G(torch.randn(16, 2)).detach()
        d_loss = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        clip_critic(D, clip_value)
    g_loss = -D(G(torch.randn(16, 2))).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
