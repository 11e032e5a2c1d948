# Denoising score matching on 1-D data, the network's (N, 1) output squeezed to match the noise.
import torch
import torch.nn as nn

torch.manual_seed(0)
batch_size, sigma = 128, 0.5

score_net = nn.Sequential(nn.Linear(2, 64), nn.Softplus(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(score_net.parameters(), lr=1e-3)

for step in range(40):
    x0 = torch.randn(batch_size) * 0.5 + 1.0
    noise = torch.randn(batch_size)
    xt = x0 + sigma * noise
    inp = torch.stack([xt, torch.full_like(xt, sigma)], dim=1)
    noise_pred = score_net(inp).squeeze(-1)
    loss = ((noise_pred - noise) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(step, loss.item())
