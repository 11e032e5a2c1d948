"""backward() every batch, but the optimizer never steps."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    true_w = torch.randn(8, 1)
    net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    sgd = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    for it in range(30):
        x = torch.randn(64, 8)
        sgd.zero_grad()
        loss = nn.functional.mse_loss(net(x), x @ true_w)
        loss.backward()


if __name__ == "__main__":
    main()
