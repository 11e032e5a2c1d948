"""DistributedDataParallel training (torchrun), DistributedSampler, a cosine schedule per epoch."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def main(dataset, epochs=10):
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 1))
    ddp_model = DDP(model)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for inputs, labels in loader:
            optimizer.zero_grad()
            outputs = ddp_model(inputs)
            loss = loss_fn(outputs, labels)
            loss.backward()
            optimizer.step()
        scheduler.step()
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}")
            torch.save(ddp_model.module.state_dict(), os.path.join("ckpt", f"{epoch}.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    main(make_dataset())
