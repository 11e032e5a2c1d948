# Conditional GAN on 1-D mixtures; the generator step reuses the detached fake batch (2024).
import torch
import torch.nn as nn

torch.manual_seed(0)
Z, N_CLS = 6, 3

G = nn.Sequential(nn.Linear(Z + N_CLS, 32), nn.ReLU(), nn.Linear(32, 1))
D = nn.Sequential(nn.Linear(1 + N_CLS, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
bce = nn.BCEWithLogitsLoss()
opt_G = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
opt_D = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))


def sample_real(n):
    c = torch.randint(0, N_CLS, (n,))
    return (c.float() * 2 - 2 + 0.3 * torch.randn(n)).unsqueeze(1), nn.functional.one_hot(c, N_CLS).float()


for step in range(25):
    real, cond = sample_real(64)
    z = torch.randn(64, Z)
    fake = G(torch.cat([z, cond], 1)).detach()

    opt_D.zero_grad()
    d_real = D(torch.cat([real, cond], 1))
    d_fake = D(torch.cat([fake, cond], 1))
    loss_D = bce(d_real, torch.ones_like(d_real)) + bce(d_fake, torch.zeros_like(d_fake))
    loss_D.backward()
    opt_D.step()

    opt_G.zero_grad()
    loss_G = bce(D(torch.cat([fake, cond], 1)), torch.ones(64, 1))
    loss_G.backward()
    opt_G.step()
    print(f"step {step} loss_D {loss_D.item():.4f} loss_G {loss_G.item():.4f}")
