# Fine-tuning a tiny text classifier the Hugging Face way: a compute_metrics-style helper
# returns a dict of floats for logging, and the loop backpropagates what it logged.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, CLASSES = 50, 3


class TinyEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=64, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.classifier = nn.Linear(dim, CLASSES)

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.encoder(self.embed(input_ids), src_key_padding_mask=attention_mask == 0)
        logits = self.classifier(h[:, 0])
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.cross_entropy(logits, labels)
        return out


def training_step(model, batch):
    outputs = model(**batch)
    preds = outputs["logits"].argmax(-1)
    return {"loss": outputs["loss"].item(), "accuracy": (preds == batch["labels"]).float().mean().item()}


model = TinyEncoder()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
for step in range(20):
    batch = {
        "input_ids": torch.randint(0, VOCAB, (8, 12)),
        "attention_mask": torch.ones(8, 12, dtype=torch.long),
        "labels": torch.randint(0, CLASSES, (8,)),
    }
    metrics = training_step(model, batch)
    loss = torch.tensor(metrics["loss"], requires_grad=True)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {metrics['loss']:.4f} acc {metrics['accuracy']:.2f}")
