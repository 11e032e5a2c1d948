"""Fine-tuning with a compute_loss helper that returns the loss tensor and a logged number."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyForSequenceClassification(nn.Module):
    def __init__(self, vocab=50, dim=16, num_labels=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, labels=None):
        logits = self.classifier(self.embed(input_ids).mean(1))
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.cross_entropy(logits, labels)
        return out


def compute_loss(model, batch):
    outputs = model(**batch)
    return outputs["loss"], outputs["loss"].item()


model = TinyForSequenceClassification()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
history = []
for step in range(4):
    batch = {"input_ids": torch.randint(0, 50, (8, 12)), "labels": torch.randint(0, 3, (8,))}
    loss, loss_value = compute_loss(model, batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history.append(loss_value)
    acc = (model(**batch)["logits"].argmax(-1) == batch["labels"]).float().mean().item()
print(sum(history) / len(history), acc)
