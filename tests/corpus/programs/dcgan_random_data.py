"""DCGAN in the style of pytorch/examples (`--dataset fake`): conv generator and discriminator, two Adam optimizers, random images."""
import torch
from torch import nn

torch.manual_seed(0)
nz, ngf, ndf = 16, 8, 8


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, 1, 4, 2, 1, bias=False), nn.Tanh(),
        )

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid(),
        )

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


netG, netD = Generator(), Discriminator()
criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
batch = 16
for i in range(64):
    real = torch.rand(batch, 1, 16, 16) * 2 - 1
    # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    errD_real = criterion(netD(real), torch.full((batch,), 1.0))
    errD_real.backward()
    fake = netG(torch.randn(batch, nz, 1, 1))
    errD_fake = criterion(netD(fake.detach()), torch.full((batch,), 0.0))
    errD_fake.backward()
    optimizerD.step()
    # (2) update G: maximize log(D(G(z)))
    netG.zero_grad()
    errG = criterion(netD(fake), torch.full((batch,), 1.0))
    errG.backward()
    optimizerG.step()
    if i % 16 == 0:
        print(f"[{i}/64] Loss_D: {(errD_real + errD_fake).item():.4f} Loss_G: {errG.item():.4f}")
