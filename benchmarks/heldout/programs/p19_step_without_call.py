# heldout: expect=GD203 line=19 alt_lines=20 static=yes
# The optimizer step is written without parentheses, so it never runs.
import torch
import torch.nn as nn

torch.manual_seed(0)

x = torch.linspace(-3, 3, 200).unsqueeze(1)
y = 0.5 * x ** 3 - x + 0.2 * torch.randn_like(x)

model = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()

for epoch in range(100):
    optimizer.zero_grad()
    pred = model(x)
    loss = loss_fn(pred, y)
    loss.backward()
    optimizer.step
    if epoch % 20 == 0:
        print(f"epoch {epoch}: {loss.item():.4f}")
