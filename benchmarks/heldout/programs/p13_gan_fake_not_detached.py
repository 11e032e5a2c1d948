# heldout: expect=GD107 line=22 alt_lines=25 static=no
# 1-D GAN; the discriminator step uses the generator output without detach, the generator step then fails.
import torch
import torch.nn as nn

torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
D = nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
g_opt = torch.optim.Adam(G.parameters(), lr=1e-3)
d_opt = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()


def real_batch(n=64):
    return 2.0 + 0.5 * torch.randn(n, 1)


for it in range(100):
    real = real_batch()
    z = torch.randn(real.size(0), 4)
    fake = G(z)
    ones, zeros = torch.ones(real.size(0), 1), torch.zeros(real.size(0), 1)

    d_loss = bce(D(real), ones) + bce(D(fake), zeros)
    d_opt.zero_grad()
    d_loss.backward()
    d_opt.step()

    g_loss = bce(D(fake), ones)
    g_opt.zero_grad()
    g_loss.backward()
    g_opt.step()
    if it % 20 == 0:
        print(it, d_loss.item(), g_loss.item())
