"""Fine-tuning a tiny classifier with a Hugging Face-style output dict and a compute_loss helper."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyForSequenceClassification(nn.Module):
    def __init__(self, vocab=50, dim=16, num_labels=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.embed(input_ids) * attention_mask.unsqueeze(-1)
        logits = self.classifier(h.sum(1) / attention_mask.sum(1, keepdim=True))
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.cross_entropy(logits, labels)
        return out


def compute_loss(model, batch):
    outputs = model(**batch)
    return outputs["loss"].item(), outputs["logits"]


model = TinyForSequenceClassification()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
for step in range(4):
    batch = {
        "input_ids": torch.randint(0, 50, (8, 12)),
        "attention_mask": torch.ones(8, 12),
        "labels": torch.randint(0, 3, (8,)),
    }
    loss_value, logits = compute_loss(model, batch)
    loss = torch.tensor(loss_value, requires_grad=True)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss_value)
