"""GD107: an LSTM's state unpacked into h and c, carried across batches without detaching."""
import torch
from torch import nn

torch.manual_seed(0)
lstm = nn.LSTM(input_size=8, hidden_size=16, batch_first=True)
head = nn.Linear(16, 8)
optimizer = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=1e-3)
h, c = torch.zeros(1, 4, 16), torch.zeros(1, 4, 16)
for step in range(6):
    x = torch.randn(4, 12, 8)
    output, (h, c) = lstm(x, (h, c))
    loss = nn.functional.mse_loss(head(output), x)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
