# heldout: expect=GD104 line=32 alt_lines=45 static=no
# Denoising autoencoder; the latent code is detached before noise is added, so the encoder never learns.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Blobs(Dataset):
    def __init__(self, n=256, dim=16):
        centers = torch.randn(4, dim) * 3
        idx = torch.randint(0, 4, (n,))
        self.x = centers[idx] + 0.3 * torch.randn(n, dim)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]


class DenoisingAE(nn.Module):
    def __init__(self, dim=16, latent=4, noise=0.1):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, latent))
        self.decoder = nn.Sequential(nn.Linear(latent, 32), nn.ReLU(), nn.Linear(32, dim))
        self.noise = noise

    def forward(self, x):
        z = self.encoder(x)
        z = z.detach() + self.noise * torch.randn_like(z)
        return self.decoder(z)


model = DenoisingAE()
loader = DataLoader(Blobs(), batch_size=32, shuffle=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    total = 0.0
    for xb in loader:
        recon = model(xb)
        loss = nn.functional.mse_loss(recon, xb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(epoch, total / len(loader))
