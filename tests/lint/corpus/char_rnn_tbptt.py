"""Character RNN with truncated BPTT: the hidden state is detached between chunks."""
import torch
import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.proj(out), state


def train(model, data, vocab, chunk=100, epochs=5):
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        state = None
        epoch_loss = 0.0
        for i in range(0, data.size(1) - chunk - 1, chunk):
            x = data[:, i : i + chunk]
            y = data[:, i + 1 : i + chunk + 1]
            if state is not None:
                state = tuple(s.detach() for s in state)
            logits, state = model(x, state)
            loss = criterion(logits.reshape(-1, vocab), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
            epoch_loss += loss.item()
        print(f"epoch {epoch}: {epoch_loss:.2f}")
