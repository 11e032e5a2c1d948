"""GD304 warns only when the small gradients show in the updates the optimizer applied."""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import Severity, watch


def _sigmoid_stack(depth: int) -> nn.Module:
    torch.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(16, 16), nn.Sigmoid()]
    return nn.Sequential(*layers, nn.Linear(16, 1))


def _attention_block() -> nn.Module:
    """Self-attention initialised like BERT (std 0.02): its query/key gradients start orders of magnitude small."""

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Linear(8, 32)
            self.query, self.key, self.value = nn.Linear(32, 32), nn.Linear(32, 32), nn.Linear(32, 32)
            self.norm = nn.LayerNorm(32)
            self.head = nn.Linear(32, 1)
            for m in self.modules():
                if isinstance(m, nn.Linear):
                    m.weight.data.normal_(0.0, 0.02)
                    m.bias.data.zero_()

        def forward(self, x):
            h = self.embed(x)
            scores = self.query(h) @ self.key(h).transpose(1, 2) / math.sqrt(32)
            h = self.norm(h + scores.softmax(-1) @ self.value(h))
            return self.head(h.mean(1))

    torch.manual_seed(0)
    return Block()


def _train(model, opt, steps, x, y):
    with watch(model, opt) as w:
        for _ in range(steps):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
    assert not w.session.internal_errors, w.session.internal_errors
    return [f for f in w.report().findings if f.code == "GD304"]


def test_sgd_moves_the_vanishing_layers_by_their_gradient_a_warning_with_the_measured_updates():
    model = _sigmoid_stack(14)
    found = _train(model, torch.optim.SGD(model.parameters(), lr=0.1), 12, torch.randn(32, 16), torch.randn(32, 1))
    assert found and found[0].severity == Severity.WARNING
    first = found[0].subjects[0]
    assert found[0].evidence["update_vs_others"][first] < 1e-2  # what SGD applied to it, against the others
    assert first in found[0].evidence["slow_layers"]


def test_adam_cannot_rescale_gradients_below_its_eps_still_a_warning():
    # 20 sigmoid layers: the first layers' gradients are far below Adam's eps (1e-8), so their steps shrink too
    model = _sigmoid_stack(20)
    found = _train(model, torch.optim.Adam(model.parameters(), lr=1e-3), 12, torch.randn(32, 16), torch.randn(32, 1))
    assert found and found[0].severity == Severity.WARNING
    first = found[0].subjects[0]
    assert found[0].evidence["update_vs_others"][first] < 1e-2


def test_adamw_moves_small_gradient_attention_layers_like_the_rest_info_only():
    model = _attention_block()
    x = torch.randn(32, 6, 8)
    y = x[:, :, :1].mean(1) * 3
    found = _train(model, torch.optim.AdamW(model.parameters(), lr=1e-3), 24, x, y)
    assert found, "the query/key gradients are small: the layers are named, as information"
    f = found[0]
    assert f.severity == Severity.INFO
    assert {"model.query", "model.key"} <= set(f.subjects)
    assert f.evidence["slow_layers"] == [] and f.evidence["rescaling"] == ["AdamW"]
    assert min(f.evidence["update_vs_others"].values()) > 0.1
