"""GD106 fixed as printed: the encoder built in main() handed to the optimizer with the head."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
    head = nn.Linear(32, 3)
    optimizer = torch.optim.Adam([*head.parameters(), *encoder.parameters()], lr=1e-3)
    for step in range(12):
        x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
        loss = nn.functional.cross_entropy(head(encoder(x)), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


main()
