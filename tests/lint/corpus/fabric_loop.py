"""A loop written for Lightning Fabric: fabric.backward and fabric.clip_gradients."""
import lightning as L
import torch
import torch.nn.functional as F
from torch import nn


def main(train_data):
    fabric = L.Fabric(accelerator="cpu", precision="bf16-mixed")
    fabric.launch()
    model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 4))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer = fabric.setup(model, optimizer)
    loader = fabric.setup_dataloaders(torch.utils.data.DataLoader(train_data, batch_size=64))
    for epoch in range(5):
        for batch_idx, (x, y) in enumerate(loader):
            is_accumulating = (batch_idx + 1) % 4 != 0
            with fabric.no_backward_sync(model, enabled=is_accumulating):
                loss = F.cross_entropy(model(x), y) / 4
                fabric.backward(loss)
            if not is_accumulating:
                fabric.clip_gradients(model, optimizer, max_norm=1.0)
                optimizer.step()
                optimizer.zero_grad()
        fabric.print(f"epoch {epoch}: {loss.item() * 4:.4f}")
