# Autoencoder for sensor windows with separate encoder and decoder optimizers
# (different learning rates). The zero_grad lines were copy-pasted.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, d_in=48, d_z=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Linear(32, d_z))

    def forward(self, x):
        return self.net(x)


class Decoder(nn.Module):
    def __init__(self, d_z=8, d_out=48):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_z, 32), nn.ReLU(), nn.Linear(32, d_out))

    def forward(self, z):
        return self.net(z)


def train(windows, epochs=3, bs=32):
    encoder, decoder = Encoder(), Decoder()
    enc_opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
    dec_opt = torch.optim.Adam(decoder.parameters(), lr=3e-3)
    for epoch in range(epochs):
        for i in range(0, len(windows), bs):
            x = windows[i:i + bs]
            recon = decoder(encoder(x))
            loss = F.mse_loss(recon, x)
            enc_opt.zero_grad()
            enc_opt.zero_grad()
            loss.backward()
            enc_opt.step()
            dec_opt.step()
        print(epoch, loss.item())
    return encoder, decoder


if __name__ == "__main__":
    t = torch.linspace(0, 60, 256 * 48).view(256, 48)
    train(torch.sin(t) + 0.05 * torch.randn_like(t))
