"""A GAN in Lightning with manual optimization and two optimizers."""
import lightning as L
import torch
import torch.nn.functional as F
from torch import nn


class GAN(L.LightningModule):
    def __init__(self, latent_dim=32):
        super().__init__()
        self.automatic_optimization = False
        self.generator = nn.Sequential(nn.Linear(latent_dim, 128), nn.ReLU(), nn.Linear(128, 784), nn.Tanh())
        self.discriminator = nn.Sequential(nn.Linear(784, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))
        self.latent_dim = latent_dim

    def training_step(self, batch, batch_idx):
        imgs, _ = batch
        imgs = imgs.view(imgs.size(0), -1)
        g_opt, d_opt = self.optimizers()
        z = torch.randn(imgs.size(0), self.latent_dim, device=self.device)
        fake = self.generator(z)

        self.toggle_optimizer(g_opt)
        g_loss = F.binary_cross_entropy_with_logits(self.discriminator(fake), torch.ones(imgs.size(0), 1))
        g_opt.zero_grad()
        self.manual_backward(g_loss)
        g_opt.step()
        self.untoggle_optimizer(g_opt)

        self.toggle_optimizer(d_opt)
        real_loss = F.binary_cross_entropy_with_logits(self.discriminator(imgs), torch.ones(imgs.size(0), 1))
        fake_loss = F.binary_cross_entropy_with_logits(self.discriminator(fake.detach()), torch.zeros(imgs.size(0), 1))
        d_loss = (real_loss + fake_loss) / 2
        d_opt.zero_grad()
        self.manual_backward(d_loss)
        self.clip_gradients(d_opt, gradient_clip_val=0.5, gradient_clip_algorithm="norm")
        d_opt.step()
        self.untoggle_optimizer(d_opt)
        self.log_dict({"g_loss": g_loss, "d_loss": d_loss}, prog_bar=True)

    def configure_optimizers(self):
        g = torch.optim.Adam(self.generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
        d = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
        return [g, d], []
