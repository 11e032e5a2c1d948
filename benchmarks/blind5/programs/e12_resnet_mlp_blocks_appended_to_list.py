"""Residual MLP for tabular regression, depth set from a config dict."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
CONFIG = {"in_features": 12, "width": 48, "depth": 4, "dropout": 0.1, "lr": 1e-3, "epochs": 3}


class ResBlock(nn.Module):
    def __init__(self, width, dropout):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, width * 2)
        self.fc2 = nn.Linear(width * 2, width)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return x + self.drop(self.fc2(F.gelu(self.fc1(self.norm(x)))))


class ResMLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.stem = nn.Linear(cfg["in_features"], cfg["width"])
        self.blocks = []
        for _ in range(cfg["depth"]):
            self.blocks.append(ResBlock(cfg["width"], cfg["dropout"]))
        self.head = nn.Linear(cfg["width"], 1)

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        return self.head(h).squeeze(-1)


def make_data(n=400):
    x = torch.randn(n, CONFIG["in_features"])
    y = x[:, :3].pow(2).sum(1) + 0.5 * x[:, 3] * x[:, 4]
    return x, y


def fit(model, x, y, cfg):
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    ds = torch.utils.data.TensorDataset(x, y)
    loader = torch.utils.data.DataLoader(ds, batch_size=32, shuffle=True)
    for epoch in range(cfg["epochs"]):
        model.train()
        for xb, yb in loader:
            loss = F.mse_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: mse {loss.item():.3f}")


x, y = make_data()
fit(ResMLP(CONFIG), x, y, CONFIG)
