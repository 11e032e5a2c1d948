# Custom training loop class for an autoencoder; the step is referenced but never called (2024).
import torch
import torch.nn as nn

torch.manual_seed(0)


class AutoEncoder(nn.Module):
    def __init__(self, d=20, z=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 12), nn.ReLU(), nn.Linear(12, z))
        self.dec = nn.Sequential(nn.Linear(z, 12), nn.ReLU(), nn.Linear(12, d))

    def forward(self, x):
        return self.dec(self.enc(x))


class Loop:
    def __init__(self, model, data, lr=1e-2, bs=32):
        self.model, self.data, self.bs = model, data, bs
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.crit = nn.MSELoss()

    def one_epoch(self):
        self.model.train()
        total = 0.0
        for i in range(0, len(self.data), self.bs):
            x = self.data[i:i + self.bs]
            recon = self.model(x)
            loss = self.crit(recon, x)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step
            total += loss.item() * len(x)
        return total / len(self.data)

    def run(self, epochs=6):
        for epoch in range(epochs):
            print(f"epoch {epoch} recon {self.one_epoch():.4f}")


data = torch.randn(128, 4) @ torch.randn(4, 20)
Loop(AutoEncoder(), data).run()
