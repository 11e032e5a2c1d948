# WGAN critic weight clipping done correctly: in place under no_grad, and via
# .data on the generator's first layer at initialisation.
import torch
import torch.nn as nn

G = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 1))
C = nn.Sequential(nn.Linear(1, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
G[0].weight.data.normal_(0.0, 0.02)
opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-5)
opt_c = torch.optim.RMSprop(C.parameters(), lr=5e-5)


def clip_weights(module, c=0.01):
    with torch.no_grad():
        for p in module.parameters():
            p.clamp_(-c, c)


for it in range(10):
    for _ in range(5):
        real = torch.randn(64, 1) * 0.5 + 2
        fake = G(torch.randn(64, 4)).detach()
        c_loss = C(fake).mean() - C(real).mean()
        opt_c.zero_grad()
        c_loss.backward()
        opt_c.step()
        clip_weights(C)
    g_loss = -C(G(torch.randn(64, 4))).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print(it, c_loss.item(), g_loss.item())
