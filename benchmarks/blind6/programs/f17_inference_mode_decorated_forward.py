# Tabular churn model with a shared `predict_batch` helper, decorated for fast
# inference, that the training step also calls.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ChurnModel(nn.Module):
    def __init__(self, n_num=8, n_cat=12):
        super().__init__()
        self.cat_emb = nn.Embedding(n_cat, 8)
        self.mlp = nn.Sequential(nn.Linear(n_num + 8, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 1))

    def forward(self, num, cat):
        return self.mlp(torch.cat([num, self.cat_emb(cat)], dim=1)).squeeze(1)


@torch.inference_mode()
def predict_batch(model, batch):
    return model(batch["num"], batch["cat"])


def train_step(model, optimizer, batch):
    logits = predict_batch(model, batch)
    loss = F.binary_cross_entropy_with_logits(logits, batch["churned"])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def batches(n_batches=10, bs=64):
    for _ in range(n_batches):
        yield {"num": torch.randn(bs, 8), "cat": torch.randint(0, 12, (bs,)),
               "churned": torch.randint(0, 2, (bs,)).float()}


model = ChurnModel()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(2):
    model.train()
    losses = [train_step(model, optimizer, b) for b in batches()]
    print(epoch, sum(losses) / len(losses))
