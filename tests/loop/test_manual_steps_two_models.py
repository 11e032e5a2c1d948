"""GD201 for a second model updated by hand after a first one (PyTorch's nn_tutorial runs both in one
script): `model.zero_grad()` after each manual update clears; a missing clear still fires."""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch


class Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(16, 4) / math.sqrt(16))
        self.bias = nn.Parameter(torch.zeros(4))

    def forward(self, xb):
        return xb @ self.weights + self.bias


def _two_sections(clear_second: bool):
    torch.manual_seed(0)
    x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
    weights = torch.randn(16, 4, requires_grad=True)
    bias = torch.zeros(4, requires_grad=True)
    model = Logistic()
    with watch() as w:
        for i in range(0, 64, 16):  # section 1: raw tensors, cleared with .grad.zero_()
            F.cross_entropy(x[i:i + 16] @ weights + bias, y[i:i + 16]).backward()
            with torch.no_grad():
                weights -= weights.grad * 0.5
                bias -= bias.grad * 0.5
                weights.grad.zero_()
                bias.grad.zero_()
        for i in range(0, 64, 16):  # section 2: an nn.Module, cleared with model.zero_grad()
            F.cross_entropy(model(x[i:i + 16]), y[i:i + 16]).backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * 0.5
                if clear_second:
                    model.zero_grad()
    assert not w.session.internal_errors
    return w.report()


def test_manual_update_then_model_zero_grad_is_silent():
    report = _two_sections(clear_second=True)
    assert "GD201" not in report.codes, str(report)


def test_manual_update_of_the_second_model_without_clearing_fires():
    report = _two_sections(clear_second=False)
    assert "GD201" in report.codes, str(report)
