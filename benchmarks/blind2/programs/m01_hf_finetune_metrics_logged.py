# Fine-tuning loop where the step helper returns the loss tensor and a dict of logged floats.
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
    logs = {"loss": outputs["loss"].item(), "accuracy": (preds == batch["labels"]).float().mean().item()}
    return outputs["loss"], logs


model = TinyEncoder()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
history = []
for step in range(20):
    batch = {
        "input_ids": torch.randint(0, VOCAB, (8, 12)),
        "attention_mask": torch.ones(8, 12, dtype=torch.long),
        "labels": torch.randint(0, CLASSES, (8,)),
    }
    loss, logs = training_step(model, batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history.append(logs["loss"])
    print(f"step {step} loss {logs['loss']:.4f} acc {logs['accuracy']:.2f}")
