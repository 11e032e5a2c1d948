"""Classifier with dropout: running loss as Python floats, validation in eval mode under no_grad."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 3))

    def forward(self, x):
        return self.net(x)


@torch.no_grad()
def evaluate(model, x, y):
    was_training = model.training
    model.eval()
    preds, losses = [], []
    for i in range(0, len(x), 50):
        logits = model(x[i:i + 50])
        losses.append(F.cross_entropy(logits, y[i:i + 50]))
        preds.append(logits.argmax(-1))
    model.train(was_training)
    return torch.stack(losses).mean().item(), (torch.cat(preds) == y).float().mean().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(500, 12)
    y = (x[:, :3].argmax(-1))
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    history = []
    for epoch in range(3):
        model.train()
        running = 0.0
        for i in range(0, 400, 40):
            loss = F.cross_entropy(model(x[i:i + 40]), y[i:i + 40])
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
            history.append(loss.detach())
        val_loss, val_acc = evaluate(model, x[400:], y[400:])
        print(epoch, running / 10, val_loss, val_acc, torch.stack(history).mean().item())
