"""Autoencoder for anomaly detection; train_one_epoch helper gets the scheduler passed in."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class AutoEncoder(nn.Module):
    def __init__(self, d=24, z=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Linear(16, z))
        self.dec = nn.Sequential(nn.Linear(z, 16), nn.ReLU(), nn.Linear(16, d))

    def forward(self, x):
        return self.dec(self.enc(x))


def train_one_epoch(model, loader, optimizer, scheduler):
    model.train()
    total = 0.0
    for (x,) in loader:
        recon = model(x)
        loss = F.mse_loss(recon, x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += loss.item() * len(x)
    return total / len(loader.dataset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    z = torch.randn(600, 4)
    x = z @ torch.randn(4, 24) + 0.05 * torch.randn(600, 24)
    loader = DataLoader(TensorDataset(x), batch_size=50, shuffle=True)
    model = AutoEncoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs, eta_min=1e-5)
    for epoch in range(args.epochs):
        print(epoch, train_one_epoch(model, loader, optimizer, scheduler))


if __name__ == "__main__":
    main()
