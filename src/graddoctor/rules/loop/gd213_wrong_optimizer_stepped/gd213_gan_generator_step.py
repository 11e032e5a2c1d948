"""GD213: a GAN whose generator step calls the discriminator's optimizer after g_loss.backward()."""
import torch
from torch import nn

torch.manual_seed(0)
latent, data_dim, batch = 8, 2, 64
generator = nn.Sequential(nn.Linear(latent, 32), nn.ReLU(), nn.Linear(32, data_dim))
discriminator = nn.Sequential(nn.Linear(data_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
g_optimizer = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
criterion = nn.BCEWithLogitsLoss()
real_label, fake_label = torch.ones(batch, 1), torch.zeros(batch, 1)

for step in range(20):
    real = torch.randn(batch, data_dim) * 0.5 + torch.tensor([2.0, -1.0])
    fake = generator(torch.randn(batch, latent))

    d_optimizer.zero_grad()
    d_loss = criterion(discriminator(real), real_label) + criterion(discriminator(fake.detach()), fake_label)
    d_loss.backward()
    d_optimizer.step()

    g_optimizer.zero_grad()
    g_loss = criterion(discriminator(fake), real_label)
    g_loss.backward()
    d_optimizer.step()  # expect: GD213
