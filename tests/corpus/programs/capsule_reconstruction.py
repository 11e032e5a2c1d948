"""A capsule network (Sabour et al., 2017) with dynamic routing and the paper's 0.0005-weighted reconstruction loss.

The reconstruction term is scaled down on purpose so that it does not dominate the
margin loss; the decoder's gradients are small because its loss term is small, not
because they fade through depth.
"""
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
CLASSES = 10


def squash(s, dim=-1):
    norm2 = (s ** 2).sum(dim=dim, keepdim=True)
    return norm2 / (1 + norm2) * s / torch.sqrt(norm2 + 1e-8)


class PrimaryCaps(nn.Module):
    def __init__(self, in_channels=32, caps=8, dim=4):
        super().__init__()
        self.dim = dim
        self.conv = nn.Conv2d(in_channels, caps * dim, kernel_size=9, stride=2)

    def forward(self, x):
        u = self.conv(x)  # (B, caps*dim, 6, 6)
        u = u.view(x.size(0), -1, self.dim, u.size(-2), u.size(-1)).permute(0, 1, 3, 4, 2)
        return squash(u.reshape(x.size(0), -1, self.dim))


class DigitCaps(nn.Module):
    def __init__(self, in_caps=288, in_dim=4, out_caps=CLASSES, out_dim=16, iterations=3):
        super().__init__()
        self.iterations = iterations
        self.W = nn.Parameter(0.01 * torch.randn(1, in_caps, out_caps, out_dim, in_dim))

    def forward(self, u):
        u_hat = (self.W @ u[:, :, None, :, None]).squeeze(-1)  # (B, in_caps, out_caps, out_dim)
        b = torch.zeros(u_hat.shape[:3], device=u.device)
        for i in range(self.iterations):
            c = F.softmax(b, dim=2)
            v = squash((c.unsqueeze(-1) * u_hat).sum(dim=1))  # (B, out_caps, out_dim)
            if i < self.iterations - 1:
                b = b + (u_hat * v.unsqueeze(1)).sum(dim=-1)
        return v


class CapsNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, kernel_size=9)
        self.primary = PrimaryCaps()
        self.digits = DigitCaps()
        self.decoder = nn.Sequential(
            nn.Linear(16 * CLASSES, 512), nn.ReLU(inplace=True),
            nn.Linear(512, 1024), nn.ReLU(inplace=True),
            nn.Linear(1024, 784), nn.Sigmoid(),
        )

    def forward(self, x, y=None):
        v = self.digits(self.primary(F.relu(self.conv1(x))))
        lengths = v.norm(dim=-1)
        chosen = y if y is not None else lengths.argmax(dim=1)
        mask = F.one_hot(chosen, CLASSES).unsqueeze(-1).float()
        recon = self.decoder((v * mask).flatten(1))
        return lengths, recon


def capsule_loss(lengths, y, recon, images):
    target = F.one_hot(y, CLASSES).float()
    margin = target * F.relu(0.9 - lengths) ** 2 + 0.5 * (1 - target) * F.relu(lengths - 0.1) ** 2
    reconstruction = F.mse_loss(recon, images.flatten(1))
    return margin.sum(dim=1).mean() + 0.0005 * reconstruction


# MNIST stand-in: 28x28 stroke patterns per class, jittered
strokes = (torch.rand(CLASSES, 1, 28, 28) > 0.8).float()
labels = torch.randint(0, CLASSES, (128,))
images = strokes[labels] * (0.7 + 0.3 * torch.rand(128, 1, 28, 28))

model = CapsNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    correct = 0
    for i in range(0, 128, 32):
        x, y = images[i:i + 32], labels[i:i + 32]
        lengths, recon = model(x, y)
        loss = capsule_loss(lengths, y, recon, x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct += (lengths.argmax(dim=1) == y).sum().item()
    print(f"epoch {epoch}: loss {loss.item():.4f}, train accuracy {correct / 128:.3f}")
