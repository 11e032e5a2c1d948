"""Multi-task NLU model: shared encoder, one classification head per task, tasks sampled per batch."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

TASKS = {"sentiment": 2, "topic": 2, "toxicity": 2}


class MultiTaskModel(nn.Module):
    def __init__(self, vocab=80, d=32, tasks=TASKS):
        super().__init__()
        self.encoder = nn.Sequential(nn.EmbeddingBag(vocab, d), nn.Linear(d, d), nn.GELU())
        n_out = max(tasks.values())
        head = nn.Sequential(nn.Dropout(0.1), nn.Linear(d, n_out))
        self.heads = nn.ModuleDict({name: head for name in tasks})

    def forward(self, tokens, task):
        return self.heads[task](self.encoder(tokens))


def task_batch(task, bs=32):
    tokens = torch.randint(0, 80, (bs, 10))
    key = {"sentiment": 3, "topic": 5, "toxicity": 7}[task]
    return tokens, (tokens % key == 0).any(1).long()


if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    model = MultiTaskModel()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for step in range(30):
        task = random.choice(list(TASKS))
        tokens, labels = task_batch(task)
        loss = F.cross_entropy(model(tokens, task), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(step, loss.item())
