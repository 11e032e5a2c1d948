# Deep residual-free MLP for a physics regression task, plain script: the hidden
# layers are built by repeating a list.
import torch
import torch.nn as nn

depth, width = 4, 64
hidden = [nn.Linear(width, width), nn.Tanh()]
model = nn.Sequential(nn.Linear(3, width), nn.Tanh(), *(hidden * depth), nn.Linear(width, 1))

# learn u(x, y, t) = sin(pi x) sin(pi y) exp(-t)
pts = torch.rand(2048, 3)
target = (torch.sin(torch.pi * pts[:, 0]) * torch.sin(torch.pi * pts[:, 1]) * torch.exp(-pts[:, 2])).unsqueeze(1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(5):
    perm = torch.randperm(2048)
    for i in range(0, 2048, 128):
        idx = perm[i:i + 128]
        loss = ((model(pts[idx]) - target[idx]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    n_params = sum(p.numel() for p in model.parameters())
    print(epoch, loss.item(), n_params)
