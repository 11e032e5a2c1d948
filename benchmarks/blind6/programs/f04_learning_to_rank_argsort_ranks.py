# Learning to rank search results: the scores are turned into ranks with a
# double argsort and compared with the relevance ranks (a Spearman-style loss).
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self, d_feat=18):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d_feat, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, docs):
        return self.mlp(docs).squeeze(-1)


def to_ranks(scores):
    return scores.argsort(dim=-1, descending=True).argsort(dim=-1).float()


def spearman_loss(pred_scores, relevance):
    pred_rank = to_ranks(pred_scores)
    true_rank = to_ranks(relevance)
    n = pred_scores.size(-1)
    return (6 * (pred_rank - true_rank).pow(2).sum(-1) / (n * (n ** 2 - 1))).mean()


scorer = Scorer()
optimizer = torch.optim.Adam(scorer.parameters(), lr=1e-3)
for step in range(20):
    queries = torch.randn(16, 10, 18)          # 16 queries, 10 candidate documents each
    relevance = queries[..., 0] + 0.1 * torch.randn(16, 10)
    loss = spearman_loss(scorer(queries), relevance)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 0:
        print(step, loss.item())
