# Encoder-decoder for image denoising; the decoder's refinement blocks are
# built from one block instance in a comprehension.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)
        self.norm = nn.GroupNorm(4, c)

    def forward(self, x):
        return x + self.conv2(F.relu(self.norm(self.conv1(x))))


class Denoiser(nn.Module):
    def __init__(self, c=16, n_refine=3):
        super().__init__()
        self.stem = nn.Conv2d(1, c, 3, padding=1)
        self.down = nn.Conv2d(c, c, 3, stride=2, padding=1)
        block = ResBlock(c)
        self.refine = nn.ModuleList([block for _ in range(n_refine)])
        self.up = nn.ConvTranspose2d(c, c, 2, stride=2)
        self.head = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        h = F.relu(self.down(F.relu(self.stem(x))))
        for blk in self.refine:
            h = blk(h)
        return x - self.head(self.up(h))


model = Denoiser()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
clean = torch.rand(32, 1, 32, 32)
for step in range(10):
    noisy = clean + 0.1 * torch.randn_like(clean)
    loss = F.mse_loss(model(noisy), clean)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, loss.item())
