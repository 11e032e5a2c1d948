# Logistic regression from scratch, optimizer written by hand in a small class (course forum, 2025).
import torch

torch.manual_seed(0)

X = torch.randn(300, 4)
true_w = torch.tensor([[1.5], [-2.0], [0.7], [0.0]])
y = (X @ true_w + 0.2 * torch.randn(300, 1) > 0).float()


class LogisticRegression:
    def __init__(self, n_features, lr=0.5):
        self.w = torch.zeros(n_features, 1, requires_grad=True)
        self.b = torch.zeros(1, requires_grad=True)
        self.lr = lr

    def forward(self, x):
        return torch.sigmoid(x @ self.w + self.b)

    def loss(self, p, t):
        return -(t * torch.log(p + 1e-7) + (1 - t) * torch.log(1 - p + 1e-7)).mean()

    def step(self):
        for param in (self.w, self.b):
            param -= self.lr * param.grad
            param.grad.zero_()

    def fit(self, x, t, epochs=15):
        for epoch in range(epochs):
            p = self.forward(x)
            loss = self.loss(p, t)
            loss.backward()
            self.step()
            acc = ((p > 0.5).float() == t).float().mean()
            print(f"epoch {epoch} loss {loss.item():.4f} acc {acc.item():.3f}")


LogisticRegression(4).fit(X, y)
