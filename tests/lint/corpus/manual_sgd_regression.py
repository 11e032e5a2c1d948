"""Linear regression from scratch: leaf tensors with requires_grad, updates under no_grad."""
import torch

torch.manual_seed(0)
X = torch.randn(200, 3)
true_w = torch.tensor([2.0, -3.4, 1.5])
y = X @ true_w + 4.2 + 0.01 * torch.randn(200)

w = torch.normal(0, 0.01, size=(3,), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.03


def squared_loss(y_hat, y):
    return ((y_hat - y) ** 2 / 2).mean()


for epoch in range(10):
    for i in range(0, 200, 10):
        xb, yb = X[i : i + 10], y[i : i + 10]
        loss = squared_loss(xb @ w + b, yb)
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
            w.grad.zero_()
            b.grad.zero_()
    with torch.no_grad():
        train_l = squared_loss(X @ w + b, y)
        print(f"epoch {epoch + 1}, loss {float(train_l):f}")
