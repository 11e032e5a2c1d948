"""A VAE trained as in pytorch/examples/vae: BCE and KL summed over the batch (`reduction='sum'`).

Summed losses give gradient norms in the thousands from the first step on; that is
their scale, not an explosion, and the loss falls.
"""
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    bce = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction='sum')
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


# MNIST stand-in: mostly black 28x28 images with a bright stroke pattern per digit class
strokes = (torch.rand(10, 1, 28, 28) > 0.85).float()
images = (strokes[torch.randint(0, 10, (512,))] * (0.7 + 0.3 * torch.rand(512, 1, 28, 28))).clamp(0, 1)

model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(1, 4):
    model.train()
    train_loss = 0.0
    for i in range(0, 512, 128):
        data = images[i:i + 128]
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print(f"====> Epoch: {epoch} Average loss: {train_loss / 512:.4f}")
