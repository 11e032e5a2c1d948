# Correct: multi-label head; BCEWithLogitsLoss on logits via self.loss_fct, sigmoid only for the returned probs.
import torch
import torch.nn as nn

torch.manual_seed(0)

VOCAB, HIDDEN, NUM_LABELS, SEQ = 50, 16, 5, 12


class MultiLabelClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.classifier = nn.Linear(HIDDEN, NUM_LABELS)
        self.loss_fct = nn.BCEWithLogitsLoss()
        self.prob_loss = nn.BCELoss()

    def forward(self, input_ids, labels=None):
        logits = self.classifier(self.embed(input_ids).mean(dim=1))
        probs = torch.sigmoid(logits)
        loss = None
        if labels is not None:
            loss = self.loss_fct(logits, labels.float())
            calib = self.prob_loss(probs, labels.float())
        return {"loss": loss, "probs": probs, "calib": calib}


input_ids = torch.randint(0, VOCAB, (64, SEQ))
labels = (input_ids[:, :NUM_LABELS] % 2 == 0).long()
model = MultiLabelClassifier()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
for epoch in range(4):
    for i in range(0, 64, 16):
        out = model(input_ids[i:i + 16], labels=labels[i:i + 16])
        optimizer.zero_grad()
        out["loss"].backward()
        optimizer.step()
    print(f"epoch {epoch} loss {out['loss'].item():.4f} calib {out['calib'].item():.4f}")
