"""An RNN over a long sequence cut into chunks: the state starts as None (the GRU's zeros) and is carried from
chunk to chunk without a detach, so the second backward runs through the first chunk's freed graph."""
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(6, 24, batch_first=True)
        self.out = nn.Linear(24, 6)

    def forward(self, x, h_state=None):
        y, h_state = self.rnn(x, h_state)
        return self.out(y), h_state


torch.manual_seed(0)
series = torch.sin(torch.linspace(0, 60, 1200)).repeat(6, 1).T.reshape(1, 1200, 6) + 0.05 * torch.randn(1, 1200, 6)
model = Tagger()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
h_state = None
for start in range(0, 1150, 50):
    chunk, target = series[:, start:start + 50], series[:, start + 1:start + 51]
    # predict the next value of every step of the chunk
    pred, h_state = model(chunk, h_state)
    loss = nn.functional.mse_loss(pred, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
