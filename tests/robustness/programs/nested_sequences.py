"""Variable-length sequences as a nested (jagged) tensor: a linear layer on each token, mean per sequence."""
import torch
from torch import nn

torch.manual_seed(0)
proj = nn.Linear(4, 4)
head = nn.Linear(4, 1)
opt = torch.optim.SGD(list(proj.parameters()) + list(head.parameters()), lr=0.1)
lengths = [3, 5, 2, 4]
seqs = [torch.randn(n, 4) for n in lengths]
y = torch.randn(len(lengths), 1)
for step in range(4):
    nt = torch.nested.nested_tensor(seqs, layout=torch.jagged)
    h = torch.relu(proj(nt))
    pooled = torch.stack([t.mean(0) for t in h.unbind()])
    loss = nn.functional.mse_loss(head(pooled), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("nested", h.is_nested, round(loss.item(), 4))
