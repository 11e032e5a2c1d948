"""GD506: an LSTM sentiment classifier built without `batch_first=True` is fed (batch, seq) token batches."""
# allow: GD306
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
vocab, seq_len = 50, 8
tokens = torch.randint(0, vocab, (160, seq_len))
sentiment = (tokens[:, -1] < vocab // 2).long()  # the last word decides
loader = DataLoader(TensorDataset(tokens, sentiment), batch_size=32, shuffle=True)


class SentimentLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, 16)
        self.lstm = nn.LSTM(16, 32)  # expect: GD506
        self.head = nn.Linear(32, 2)

    def forward(self, x):
        out, _ = self.lstm(self.embed(x))  # (batch, seq, 16) read as (seq, batch, 16)
        return self.head(out[:, -1])


model = SentimentLSTM()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
