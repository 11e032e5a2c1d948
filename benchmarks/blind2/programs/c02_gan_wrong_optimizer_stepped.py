# A vanilla GAN on a 1-D Gaussian mixture. The generator update steps the wrong optimizer.
import torch
import torch.nn as nn

torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 1))
D = nn.Sequential(nn.Linear(1, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
g_optimizer = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
d_optimizer = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()


def sample_real(n):
    centers = torch.tensor([-2.0, 2.0])[torch.randint(0, 2, (n,))]
    return (centers + 0.3 * torch.randn(n)).unsqueeze(1)


for step in range(30):
    real = sample_real(64)
    z = torch.randn(64, 4)
    fake = G(z)

    d_optimizer.zero_grad()
    d_loss = bce(D(real), torch.ones(64, 1)) + bce(D(fake.detach()), torch.zeros(64, 1))
    d_loss.backward()
    d_optimizer.step()

    g_optimizer.zero_grad()
    g_loss = bce(D(fake), torch.ones(64, 1))
    g_loss.backward()
    d_optimizer.step()

    if step % 5 == 0:
        print(f"step {step} d_loss {d_loss.item():.3f} g_loss {g_loss.item():.3f}")
