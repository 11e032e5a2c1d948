"""A minimal Hugging Face-like Trainer that keeps a loss history for logging."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelOutput(dict):
    def __getattr__(self, key):
        return self[key]


class TinyLM(nn.Module):
    def __init__(self, vocab=40, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids, labels=None):
        logits = self.lm_head(self.embed(input_ids))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        return ModelOutput(loss=loss, logits=logits)


class MiniTrainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.log_history = []

    def training_step(self, batch):
        outputs = self.model(**batch)
        outputs.loss.backward()
        return outputs

    def train(self, dataset):
        for batch in dataset:
            self.optimizer.zero_grad()
            outputs = self.training_step(batch)
            self.optimizer.step()
            self.log_history.append(outputs.loss)
        return sum(self.log_history) / len(self.log_history)


data = [{"input_ids": ids, "labels": ids} for ids in torch.randint(0, 40, (5, 4, 10))]
print(MiniTrainer(TinyLM()).train(data))
