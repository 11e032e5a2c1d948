"""Fine-tune a pretrained-like classifier; the zero-shot baseline is measured first."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self, din=20, classes=4):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(din, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        return self.fc(self.features(x))


def evaluate_baseline(model, x, y):
    """Accuracy of the model before fine-tuning, logged for the report."""
    model.eval()
    torch.set_grad_enabled(False)
    correct = (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct / len(y)


def finetune(model, loader, epochs=2, lr=1e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        total = 0.0
        for xb, yb in loader:
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: {total / len(loader):.4f}")


def main():
    x = torch.randn(256, 20)
    y = (x[:, 0] > 0).long() + 2 * (x[:, 1] > 0).long()
    val_x, val_y = x[200:], y[200:]
    model = Net()
    print("baseline accuracy", evaluate_baseline(model, val_x, val_y))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:200], y[:200]), batch_size=32)
    finetune(model, loader)


if __name__ == "__main__":
    main()
