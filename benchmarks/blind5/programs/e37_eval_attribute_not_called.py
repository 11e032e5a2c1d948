"""Sentiment model with dropout; test-set predictions after training are not reproducible."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SentimentLSTM(nn.Module):
    def __init__(self, vocab=300, d=32, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.drop = nn.Dropout(0.5)
        self.lstm = nn.LSTM(d, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 2)

    def forward(self, ids):
        h, _ = self.lstm(self.drop(self.emb(ids)))
        return self.fc(self.drop(h[:, -1]))


def make_split(n, length=15):
    ids = torch.randint(0, 300, (n, length))
    labels = ((ids < 50).sum(1) > (ids > 250).sum(1)).long()
    return ids, labels


def predict(model, ids, bs=64):
    model.eval
    outs = []
    with torch.inference_mode():
        for i in range(0, len(ids), bs):
            outs.append(model(ids[i:i + bs]).softmax(-1))
    return torch.cat(outs)


train_ids, train_y = make_split(640)
test_ids, test_y = make_split(200)
model = SentimentLSTM()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
model.train()
for epoch in range(3):
    for i in range(0, 640, 32):
        loss = F.cross_entropy(model(train_ids[i:i + 32]), train_y[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("epoch", epoch, round(loss.item(), 4))

p1, p2 = predict(model, test_ids), predict(model, test_ids)
print("accuracy", (p1.argmax(1) == test_y).float().mean().item(), "max diff", (p1 - p2).abs().max().item())
