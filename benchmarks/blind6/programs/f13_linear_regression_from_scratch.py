# Linear regression "from scratch" as in many tutorials: weights as leaf tensors,
# the update written in place without no_grad.
import torch

torch.manual_seed(0)
true_w = torch.tensor([2.0, -3.4])
true_b = 4.2
features = torch.randn(1000, 2)
labels = features @ true_w + true_b + 0.01 * torch.randn(1000)

w = torch.normal(0, 0.01, size=(2,), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr, batch_size = 0.03, 10


def linreg(X, w, b):
    return X @ w + b


def squared_loss(y_hat, y):
    return ((y_hat - y) ** 2 / 2).mean()


for epoch in range(3):
    for i in range(0, 1000, batch_size):
        X, y = features[i:i + batch_size], labels[i:i + batch_size]
        l = squared_loss(linreg(X, w, b), y)
        l.backward()
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    print(f"epoch {epoch + 1}, loss {squared_loss(linreg(features, w, b), labels).item():f}")
