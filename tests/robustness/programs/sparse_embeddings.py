"""A bag-of-words classifier with sparse embedding gradients (SparseAdam) and a sparse adjacency matmul."""
import torch
from torch import nn

torch.manual_seed(0)
emb = nn.Embedding(100, 16, sparse=True)
head = nn.Linear(16, 3)
sparse_opt = torch.optim.SparseAdam(emb.parameters(), lr=1e-2)
dense_opt = torch.optim.Adam(head.parameters(), lr=1e-2)
adj = torch.eye(8).to_sparse()
tokens = torch.randint(0, 100, (8, 5))
labels = torch.randint(0, 3, (8,))
for step in range(5):
    h = emb(tokens).mean(1)
    h = torch.sparse.mm(adj, h)
    loss = nn.functional.cross_entropy(head(h), labels)
    sparse_opt.zero_grad()
    dense_opt.zero_grad()
    loss.backward()
    sparse_opt.step()
    dense_opt.step()
print("sparse grad", emb.weight.grad.is_sparse, round(loss.item(), 4))
