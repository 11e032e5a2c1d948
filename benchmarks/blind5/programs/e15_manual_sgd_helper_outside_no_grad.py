"""Logistic regression from scratch: hand-written SGD with momentum in a helper function."""
import torch

torch.manual_seed(0)


def init_params(n_features):
    w = torch.zeros(n_features, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return [w, b]


def model(x, params):
    w, b = params
    return torch.sigmoid(x @ w + b).squeeze(-1)


def bce(p, y, eps=1e-7):
    p = p.clamp(eps, 1 - eps)
    return -(y * p.log() + (1 - y) * (1 - p).log()).mean()


def sgd_momentum_step(params, velocities, lr=0.1, beta=0.9):
    for p, v in zip(params, velocities):
        v.mul_(beta).add_(p.grad)
        p.sub_(lr * v)
        p.grad.zero_()


def make_data(n=500, d=5):
    x = torch.randn(n, d)
    true_w = torch.tensor([1.5, -2.0, 0.0, 0.7, 0.0])
    y = (torch.sigmoid(x @ true_w) > torch.rand(n)).float()
    return x, y


x, y = make_data()
params = init_params(x.shape[1])
velocities = [torch.zeros_like(p) for p in params]
for epoch in range(20):
    for i in range(0, len(x), 50):
        xb, yb = x[i:i + 50], y[i:i + 50]
        loss = bce(model(xb, params), yb)
        loss.backward()
        sgd_momentum_step(params, velocities)
    if epoch % 5 == 0:
        acc = ((model(x, params) > 0.5).float() == y).float().mean()
        print(epoch, loss.item(), acc.item())
