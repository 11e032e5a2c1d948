"""Classic train/val phase loop (set_grad_enabled per phase) with BatchNorm and Dropout."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.3),
                                 nn.Linear(64, 3))

    def forward(self, x):
        return self.net(x)


x = torch.randn(700, 10)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
loaders = {
    "train": torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:560], y[:560]), batch_size=40,
                                         shuffle=True),
    "val": torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[560:], y[560:]), batch_size=40),
}
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
best_acc, best_preds = 0.0, None

for epoch in range(3):
    for phase in ("train", "val"):
        model.train() if phase == "train" else model.eval()
        running_loss, correct, preds = 0.0, 0, []
        for xb, yb in loaders[phase]:
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                out = model(xb)
                loss = F.cross_entropy(out, yb)
                if phase == "train":
                    loss.backward()
                    optimizer.step()
            running_loss += loss.item() * xb.size(0)
            correct += (out.argmax(1) == yb).sum().item()
            preds.append(out.detach().cpu())
        acc = correct / len(loaders[phase].dataset)
        if phase == "val" and acc > best_acc:
            best_acc, best_preds = acc, torch.cat(preds)
        print(epoch, phase, round(running_loss / len(loaders[phase].dataset), 4), round(acc, 3))
