"""Tabular regression (house-price-like) with a step function returning a dict of metrics."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class PriceModel(nn.Module):
    def __init__(self, n_num=6, n_cat=10, d_cat=4):
        super().__init__()
        self.cat_emb = nn.Embedding(n_cat, d_cat)
        self.mlp = nn.Sequential(nn.Linear(n_num + d_cat, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.head = nn.Linear(32, 1)

    def forward(self, num, cat):
        return self.head(self.mlp(torch.cat([num, self.cat_emb(cat)], 1)))


def make_dataset(n=600):
    num = torch.randn(n, 6)
    cat = torch.randint(0, 10, (n,))
    price = 3 * num[:, 0] + num[:, 1] * num[:, 2] + 0.3 * cat.float() + 0.1 * torch.randn(n)
    return torch.utils.data.TensorDataset(num, cat, price)


def compute_step(model, batch):
    num, cat, price = batch
    pred = model(num, cat)
    loss = F.mse_loss(pred, price)
    return {"loss": loss, "rmse": loss.detach().sqrt()}


def fit(model, loader, epochs=3):
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(epochs):
        for batch in loader:
            out = compute_step(model, batch)
            opt.zero_grad()
            out["loss"].backward()
            opt.step()
        print(epoch, round(out["loss"].item(), 4), round(out["rmse"].item(), 4))


loader = torch.utils.data.DataLoader(make_dataset(), batch_size=64, shuffle=True)
fit(PriceModel(), loader)
