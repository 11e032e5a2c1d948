"""WGAN-GP on 2-D ring data; the critic is updated n_critic times per generator update."""
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
Z = 4


def ring(n, modes=8):
    k = torch.randint(0, modes, (n,)).float()
    ang = 2 * math.pi * k / modes
    return torch.stack([ang.cos(), ang.sin()], 1) * 2 + 0.05 * torch.randn(n, 2)


def gradient_penalty(critic, real, fake):
    eps = torch.rand(real.shape[0], 1)
    mix = (eps * real + (1 - eps) * fake).requires_grad_(True)
    grads = torch.autograd.grad(critic(mix).sum(), mix, create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


class WGANGP:
    def __init__(self, n_critic=3, lam=10.0):
        self.gen = nn.Sequential(nn.Linear(Z, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
        self.critic = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
        self.opt_gen = torch.optim.Adam(self.gen.parameters(), lr=1e-4, betas=(0.0, 0.9))
        self.opt_critic = torch.optim.Adam(self.critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
        self.n_critic, self.lam = n_critic, lam

    def critic_update(self, real):
        fake = self.gen(torch.randn(real.shape[0], Z)).detach()
        loss = self.critic(fake).mean() - self.critic(real).mean()
        loss = loss + self.lam * gradient_penalty(self.critic, real, fake)
        self.opt_critic.zero_grad()
        loss.backward()
        self.opt_critic.step()
        return loss.item()

    def generator_update(self, bs):
        fake = self.gen(torch.randn(bs, Z))
        loss = -self.critic(fake).mean()
        self.opt_gen.zero_grad()
        loss.backward()
        self.opt_critic.step()
        return loss.item()

    def fit(self, iters=20, bs=64):
        for it in range(iters):
            for _ in range(self.n_critic):
                c_loss = self.critic_update(ring(bs))
            g_loss = self.generator_update(bs)
            if it % 5 == 0:
                print(it, round(c_loss, 3), round(g_loss, 3))


WGANGP().fit()
