"""VQ-VAE quantiser with a straight-through estimator, codebook and commitment losses."""
import torch
import torch.nn as nn
import torch.nn.functional as F

class VectorQuantizer(nn.Module):
    def __init__(self, num_codes, dim, beta=0.25):
        super().__init__()
        self.codebook = nn.Embedding(num_codes, dim)
        self.codebook.weight.data.uniform_(-1 / num_codes, 1 / num_codes)
        self.beta = beta
    def forward(self, z):
        flat = z.reshape(-1, z.shape[-1])
        d = (flat.pow(2).sum(1, keepdim=True) - 2 * flat @ self.codebook.weight.t() + self.codebook.weight.pow(2).sum(1))
        idx = d.argmin(1)
        q = self.codebook(idx).view_as(z)
        loss = F.mse_loss(q.detach(), z) * self.beta + F.mse_loss(q, z.detach())
        q = z + (q - z).detach()
        return q, loss, idx

def train(model, loader, optimizer, epochs):
    recon_history, vq_history = [], []
    for epoch in range(epochs):
        for x in loader:
            x_hat, vq_loss, _ = model(x)
            recon = F.mse_loss(x_hat, x)
            loss = recon + vq_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            recon_history.append(recon.item())
            vq_history.append(vq_loss.item())
    return recon_history, vq_history
