"""Lightning-like module and a minimal fit loop; the module owns its optimizer logic."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class AutoEncoderModule(nn.Module):
    def __init__(self, din=32, code=4, lr=1e-3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(din, 16), nn.ReLU(), nn.Linear(16, code))
        self.decoder = nn.Sequential(nn.Linear(code, 16), nn.ReLU(), nn.Linear(16, din))
        self.lr = lr

    def forward(self, x):
        return self.decoder(self.encoder(x))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

    def training_step(self, batch):
        (x,) = batch
        return F.mse_loss(self(x), x)

    def optimizer_step(self, optimizer):
        optimizer.step()


def fit(module, loader, max_epochs=3):
    optimizer = module.configure_optimizers()
    for epoch in range(max_epochs):
        running = 0.0
        for batch in loader:
            optimizer.zero_grad()
            loss = module.training_step(batch)
            loss.backward()
            running += loss.item()
        print(f"epoch {epoch}: recon {running / len(loader):.4f}")


latent = torch.randn(320, 4)
data = torch.tanh(latent @ torch.randn(4, 32))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data), batch_size=32, shuffle=True)
fit(AutoEncoderModule(), loader)
