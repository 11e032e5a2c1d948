"""GD107 (gallery gd107_rnn_hidden.py) fixed as printed: the hidden state detached at the start of each batch."""
import torch
from torch import nn

torch.manual_seed(0)
rnn = nn.GRU(input_size=8, hidden_size=16, batch_first=True)
head = nn.Linear(16, 8)
optimizer = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-3)

hidden = torch.zeros(1, 4, 16)
for step in range(5):
    hidden = hidden.detach()
    x = torch.randn(4, 12, 8)
    output, hidden = rnn(x, hidden)
    loss = nn.functional.mse_loss(head(output), x)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
