# heldout: expect=GD104 line=17 alt_lines=37 static=no
# Two-tower recommender; forward uses the user tower for items by mistake, item tower never trained.
import torch
import torch.nn as nn

torch.manual_seed(0)


class TwoTower(nn.Module):
    def __init__(self, dim=12, emb=8):
        super().__init__()
        self.user_tower = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, emb))
        self.item_tower = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, emb))

    def forward(self, user, item):
        u = self.user_tower(user)
        v = self.user_tower(item)
        return (u * v).sum(-1)


def batches(n_batches=20, bs=32, dim=12):
    for _ in range(n_batches):
        user = torch.randn(bs, dim)
        item = torch.randn(bs, dim)
        label = ((user[:, 0] * item[:, 0]) > 0).float()
        yield user, item, label


model = TwoTower()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(2):
    for user, item, label in batches():
        score = model(user, item)
        loss = loss_fn(score, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
