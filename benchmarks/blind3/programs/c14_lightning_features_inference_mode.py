"""A LightningModule-style image classifier with a frozen-looking feature step and a hand-written fit loop."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class LitClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(8, 10)

    def extract(self, x):
        with torch.inference_mode():
            return self.features(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.head(self.extract(x).clone())
        return F.cross_entropy(logits, y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def fit(module, batches, epochs=2):
    opt = module.configure_optimizers()
    for epoch in range(epochs):
        for i, batch in enumerate(batches):
            loss = module.training_step(batch, i)
            opt.zero_grad()
            loss.backward()
            opt.step()


data = [(torch.randn(4, 1, 8, 8), torch.randint(0, 10, (4,))) for _ in range(3)]
fit(LitClassifier(), data)
