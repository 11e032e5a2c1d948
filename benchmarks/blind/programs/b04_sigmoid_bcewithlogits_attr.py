# Multi-label text classifier head on top of a tiny encoder; loss module kept on the model (HF-style, 2024).
import torch
import torch.nn as nn

torch.manual_seed(0)

VOCAB, HIDDEN, NUM_LABELS, SEQ = 50, 16, 5, 12


class TinyEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        layer = nn.TransformerEncoderLayer(HIDDEN, nhead=2, dim_feedforward=32, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)

    def forward(self, input_ids):
        return self.encoder(self.embed(input_ids))


class MultiLabelClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = TinyEncoder()
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(HIDDEN, NUM_LABELS)
        self.loss_fct = nn.BCEWithLogitsLoss()

    def forward(self, input_ids, labels=None):
        pooled = self.backbone(input_ids).mean(dim=1)
        logits = self.classifier(self.dropout(pooled))
        probs = torch.sigmoid(logits)
        loss = None
        if labels is not None:
            loss = self.loss_fct(probs, labels.float())
        return {"loss": loss, "probs": probs}


input_ids = torch.randint(0, VOCAB, (64, SEQ))
labels = (input_ids[:, :NUM_LABELS] % 2 == 0).long()

model = MultiLabelClassifier()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)

for epoch in range(4):
    model.train()
    for i in range(0, 64, 16):
        out = model(input_ids[i:i + 16], labels=labels[i:i + 16])
        optimizer.zero_grad()
        out["loss"].backward()
        optimizer.step()
    print(f"epoch {epoch} loss {out['loss'].item():.4f}")
