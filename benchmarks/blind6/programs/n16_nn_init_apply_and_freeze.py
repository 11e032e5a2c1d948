# In-place initialisers from nn.init applied through model.apply (they run
# under no_grad), and freezing with requires_grad_(False): no in-place op on a
# leaf that autograd tracks.
import torch
import torch.nn as nn
import torch.nn.functional as F


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Embedding):
        nn.init.normal_(m.weight, std=0.02)


class Recommender(nn.Module):
    def __init__(self, n_items=300, d=32):
        super().__init__()
        self.items = nn.Embedding(n_items, d)
        self.mlp = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, 1))
        self.apply(init_weights)

    def forward(self, item_ids):
        return self.mlp(self.items(item_ids).mean(1)).squeeze(-1)


model = Recommender()
model.items.weight.requires_grad_(False)
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
for step in range(20):
    ids, clicked = torch.randint(0, 300, (32, 5)), torch.randint(0, 2, (32,)).float()
    loss = F.binary_cross_entropy_with_logits(model(ids), clicked)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(step, loss.item())
