# heldout: expect=none
# A correct 1-D GAN: fake.detach() for the discriminator step, two optimizers.
import torch
import torch.nn as nn

torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
D = nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
g_opt = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
d_opt = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()

for it in range(150):
    real = 2.0 + 0.5 * torch.randn(64, 1)
    fake = G(torch.randn(64, 4))
    ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)

    d_opt.zero_grad()
    d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    d_loss.backward()
    d_opt.step()

    g_opt.zero_grad()
    g_loss = bce(D(fake), ones)
    g_loss.backward()
    g_opt.step()
    if it % 50 == 0:
        print(it, round(d_loss.item(), 3), round(g_loss.item(), 3), fake.mean().item())
