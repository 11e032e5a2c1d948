"""GD505 needs a layer that ignores its input, not merely identical rows at a loss.

A VQ-VAE whose batch picked one code has identical rows at its codebook loss,
and its straight-through output `x + (q - x).detach()` equals `q` up to
rounding; the output still depends on the input through the choice of code.
Next to it, the same VQ-VAE whose decoder ends in a ReLU that died has an
output that really does not depend on the input, and must still be found.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch

from .helpers import findings, loud


class VQVAE(nn.Module):
    def __init__(self, final_relu: bool):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        self.codebook = nn.Embedding(8, 4)  # N(0, 1) init: far from the encoder's outputs, one code wins
        self.decoder = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 16))
        self.final = nn.ReLU() if final_relu else nn.Identity()

    def forward(self, x):
        z = self.encoder(x)
        q = self.codebook(torch.cdist(z, self.codebook.weight).argmin(1))
        codebook_loss = F.mse_loss(q, z.detach())
        commitment_loss = F.mse_loss(z, q.detach())
        self.vq_loss = codebook_loss + 0.25 * commitment_loss
        return self.final(self.decoder(z + (q - z).detach()))  # straight-through


def _train(final_relu: bool):
    torch.manual_seed(0)
    model = VQVAE(final_relu)
    data = torch.rand(512, 16)
    if final_relu:
        with torch.no_grad():  # codes started from encoder outputs, so batches use several of them
            model.codebook.weight.copy_(model.encoder(data[:8]))
        nn.init.constant_(model.decoder[2].bias, -5.0)  # the output ReLU sits below zero for every input
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with watch(model, optimizer) as w:
        for step in range(200):
            x = data[torch.randint(0, 512, (32,))]
            recon = model(x)  # VQ MODEL CALL
            loss = F.mse_loss(recon, x) + model.vq_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return w, model, data


def test_one_code_per_batch_with_straight_through_is_silent():
    w, model, data = _train(final_relu=False)
    with torch.no_grad():
        z = model.encoder(data[:64])
        codes = torch.cdist(z, model.codebook.weight).argmin(1)
        out = model(data[:64])
    assert codes.unique().numel() == 1  # the situation itself: every vector picked the same code,
    assert (out - out[:1]).abs().max() < 1e-5  # so the outputs agree up to rounding
    assert loud(w) == []


def test_dead_output_relu_behind_straight_through_is_found():
    w, model, data = _train(final_relu=True)
    with torch.no_grad():
        assert torch.cdist(model.encoder(data), model.codebook.weight).argmin(1).unique().numel() > 1
    [f] = findings(w, "GD505")
    assert "recon = model(x)" in open(f.file).read().splitlines()[f.line - 1]
    assert "`final`" in f.message
    assert torch.equal(model(torch.rand(5, 16)), torch.zeros(5, 16))  # oracle: really constant
