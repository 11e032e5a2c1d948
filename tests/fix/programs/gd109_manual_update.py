"""Linear regression trained by hand: the update `w -= lr * w.grad` runs with gradient recording on, on a leaf
that requires grad, so it fails."""
import torch

torch.manual_seed(0)
x = torch.randn(128, 5)
y = x @ torch.tensor([[1.5], [-2.0], [0.5], [0.0], [3.0]]) + 0.7

w = torch.zeros(5, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1

for epoch in range(40):
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    for param in (w, b):
        param -= lr * param.grad
        param.grad.zero_()
    if epoch % 10 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")
