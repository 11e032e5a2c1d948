# heldout: expect=GD109 line=13 alt_lines=28 static=yes
# A max-norm weight constraint applied after each step, outside torch.no_grad().
import torch
import torch.nn as nn

torch.manual_seed(0)


def apply_max_norm(model, max_norm=1.0):
    for name, p in model.named_parameters():
        if p.dim() > 1:
            norms = p.norm(dim=1, keepdim=True).clamp(min=max_norm)
            p.mul_(max_norm / norms)


model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
x = torch.randn(128, 10)
y = torch.randint(0, 4, (128,))

for epoch in range(5):
    for i in range(0, 128, 32):
        optimizer.zero_grad()
        loss = criterion(model(x[i:i + 32]), y[i:i + 32])
        loss.backward()
        optimizer.step()
        apply_max_norm(model)
    print(epoch, loss.item())
