# WGAN on a 1-D Gaussian mixture: the critic's weights are clipped in place
# after each critic step, outside no_grad.
import torch
import torch.nn as nn


def make_mlp(d_in, d_out):
    return nn.Sequential(nn.Linear(d_in, 32), nn.LeakyReLU(0.2), nn.Linear(32, d_out))


class WGAN:
    def __init__(self, z_dim=4, clip=0.01, n_critic=5):
        self.G, self.C = make_mlp(z_dim, 1), make_mlp(1, 1)
        self.z_dim, self.clip, self.n_critic = z_dim, clip, n_critic
        self.opt_g = torch.optim.RMSprop(self.G.parameters(), lr=5e-5)
        self.opt_c = torch.optim.RMSprop(self.C.parameters(), lr=5e-5)

    def sample_real(self, n):
        return torch.cat([torch.randn(n // 2, 1) - 2, torch.randn(n - n // 2, 1) + 2])

    def critic_step(self, n=64):
        fake = self.G(torch.randn(n, self.z_dim)).detach()
        loss = self.C(fake).mean() - self.C(self.sample_real(n)).mean()
        self.opt_c.zero_grad()
        loss.backward()
        self.opt_c.step()
        for p in self.C.parameters():
            p.clamp_(-self.clip, self.clip)
        return loss.item()

    def generator_step(self, n=64):
        loss = -self.C(self.G(torch.randn(n, self.z_dim))).mean()
        self.opt_g.zero_grad()
        loss.backward()
        self.opt_g.step()
        return loss.item()

    def train(self, iters=10):
        for it in range(iters):
            for _ in range(self.n_critic):
                c_loss = self.critic_step()
            print(it, c_loss, self.generator_step())


WGAN().train()
