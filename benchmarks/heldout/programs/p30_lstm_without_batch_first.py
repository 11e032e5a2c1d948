# heldout: expect=GD506 line=16 alt_lines=21 static=no
# Sentiment-style LSTM classifier fed (batch, seq, feature) batches while the LSTM expects (seq, batch, feature).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

VOCAB, SEQ_LEN = 50, 12


class TextClassifier(nn.Module):
    def __init__(self, vocab=VOCAB, emb=16, hidden=32, n_classes=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=1)
        self.fc = nn.Linear(hidden, n_classes)

    def forward(self, tokens):
        emb = self.embedding(tokens)  # (batch, seq, emb)
        out, _ = self.lstm(emb)
        return self.fc(out[:, -1, :])


tokens = torch.randint(0, VOCAB, (320, SEQ_LEN))
labels = (tokens[:, :4] < VOCAB // 2).sum(1).ge(2).long()
loader = DataLoader(TensorDataset(tokens, labels), batch_size=32, shuffle=True)
model = TextClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss()
for epoch in range(3):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
