"""A custom autograd Function (straight-through estimator) used inside a trained model."""
import torch
import torch.nn as nn


class StraightThroughSign(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sign()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1).to(grad_output.dtype)


class BinaryLinear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in) * 0.1)

    def forward(self, x):
        return x @ StraightThroughSign.apply(self.weight).t()


model = nn.Sequential(BinaryLinear(20, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
for step in range(500):
    x = torch.randn(128, 20)
    y = (x.sum(1) > 0).long()
    loss = loss_fn(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
