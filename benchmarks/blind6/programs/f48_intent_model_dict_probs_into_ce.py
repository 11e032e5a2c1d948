# Intent classifier returning a dict with logits and probabilities; the loss
# helper picks the probabilities.
import torch
import torch.nn as nn
import torch.nn.functional as F


class IntentModel(nn.Module):
    def __init__(self, vocab=400, d=64, n_intents=7):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.conv = nn.Conv1d(d, d, 3, padding=1)
        self.fc = nn.Linear(d, n_intents)

    def forward(self, ids):
        h = F.relu(self.conv(self.emb(ids).transpose(1, 2))).max(dim=2).values
        logits = self.fc(h)
        return {"logits": logits, "probs": logits.softmax(dim=-1)}


def compute_loss(outputs, labels, smoothing=0.05):
    return F.cross_entropy(outputs["probs"], labels, label_smoothing=smoothing)


def run(epochs=3):
    model = IntentModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    data = [(torch.randint(1, 400, (32, 15)), torch.randint(0, 7, (32,))) for _ in range(12)]
    for epoch in range(epochs):
        for ids, labels in data:
            outputs = model(ids)
            loss = compute_loss(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


run()
