# A LightningModule-style class driven by a hand-written fit loop (no Lightning installed);
# validation runs under no_grad but nobody calls eval(), and the model has dropout and batch norm.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LitClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 4))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch):
        x, y = batch
        return F.cross_entropy(self(x), y)

    def validation_step(self, batch):
        x, y = batch
        logits = self(x)
        return (logits.argmax(-1) == y).float().mean().item()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05, momentum=0.9)


def make_batches(n):
    return [(torch.randn(32, 16), torch.randint(0, 4, (32,))) for _ in range(n)]


model = LitClassifier()
optimizer = model.configure_optimizers()
train_batches, val_batches = make_batches(8), make_batches(2)
for epoch in range(4):
    model.train()
    for batch in train_batches:
        loss = model.training_step(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        accs = [model.validation_step(batch) for batch in val_batches]
    print(f"epoch {epoch} loss {loss.item():.3f} val_acc {sum(accs) / len(accs):.3f}")
