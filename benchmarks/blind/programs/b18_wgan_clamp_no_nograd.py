# WGAN on a 1-D Gaussian; critic weights clipped after each critic step (2024 repo issue).
import torch
import torch.nn as nn

torch.manual_seed(0)

Z_DIM, CLIP, N_CRITIC = 4, 0.01, 3

G = nn.Sequential(nn.Linear(Z_DIM, 16), nn.ReLU(), nn.Linear(16, 1))
D = nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-4)
opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-4)


def real_batch(n=64):
    return 3.0 + 0.5 * torch.randn(n, 1)


for it in range(20):
    for _ in range(N_CRITIC):
        real = real_batch()
        fake = G(torch.randn(64, Z_DIM)).detach()
        d_loss = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        for p in D.parameters():
            p.clamp_(-CLIP, CLIP)

    fake = G(torch.randn(64, Z_DIM))
    g_loss = -D(fake).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print(f"iter {it} d_loss {d_loss.item():.4f} g_loss {g_loss.item():.4f} fake_mean {fake.mean().item():.3f}")
