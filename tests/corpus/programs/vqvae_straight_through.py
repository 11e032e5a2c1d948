"""A small VQ-VAE: nearest-code quantisation, straight-through estimator, codebook and commitment losses,
dead codes restarted after each epoch.

Early on every image of a batch picks the same code (the codebook loss sees identical rows, and with the
straight-through estimator so can the decoder), until the first restart spreads the codes.
"""
import torch
from torch import nn
from torch.nn import functional as F


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings=32, embedding_dim=8, commitment_cost=0.25):
        super().__init__()
        self.embedding = nn.Embedding(num_embeddings, embedding_dim)
        self.commitment_cost = commitment_cost
        self.register_buffer("usage", torch.zeros(num_embeddings))

    def forward(self, inputs):
        distances = torch.cdist(inputs, self.embedding.weight)
        indices = distances.argmin(1)
        quantized = self.embedding(indices)
        codebook_loss = F.mse_loss(quantized, inputs.detach())
        commitment_loss = F.mse_loss(inputs, quantized.detach())
        quantized = inputs + (quantized - inputs).detach()  # straight-through estimator
        if self.training:
            self.usage += torch.bincount(indices, minlength=len(self.usage)).float()
        return quantized, codebook_loss + self.commitment_cost * commitment_loss, indices

    @torch.no_grad()
    def restart_dead_codes(self, encodings):
        dead = self.usage == 0
        picks = torch.randint(0, len(encodings), (int(dead.sum()),))
        self.embedding.weight[dead] = encodings[picks] + 0.01 * torch.randn(len(picks), encodings.shape[1])
        self.usage.zero_()
        return int(dead.sum())


class VQVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 8))
        self.quantizer = VectorQuantizer()
        self.decoder = nn.Sequential(nn.Linear(8, 128), nn.ReLU(), nn.Linear(128, 64))

    def forward(self, x):
        quantized, vq_loss, indices = self.quantizer(self.encoder(x))
        return self.decoder(quantized), vq_loss, indices


def blobs(n):
    """8x8 images of one Gaussian blob at a random place."""
    grid = torch.arange(8).float()
    cy, cx = torch.randint(1, 7, (n, 1, 1)).float(), torch.randint(1, 7, (n, 1, 1)).float()
    return torch.exp(-((grid.view(1, 8, 1) - cy) ** 2 + (grid.view(1, 1, 8) - cx) ** 2) / 2.0).view(n, 64)


torch.manual_seed(0)
data = blobs(4096)
model = VQVAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    perm = torch.randperm(len(data))
    for b in range(0, len(data), 32):
        x = data[perm[b:b + 32]]
        recon, vq_loss, indices = model(x)
        recon_loss = F.mse_loss(recon, x)
        loss = recon_loss + vq_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        restarted = model.quantizer.restart_dead_codes(model.encoder(data[perm[:512]]))
        _, _, codes = model(data[:512])
    print(f"epoch {epoch}: recon {recon_loss.item():.4f} codes used {codes.unique().numel()}, {restarted} restarted")
