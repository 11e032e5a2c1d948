"""GD207 names the line that keeps the history, and counts the steps of the history's own optimizer."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch

_SOURCE = Path(__file__).read_text().splitlines()


def line(marker: str) -> int:
    return next(i + 1 for i, text in enumerate(_SOURCE) if text.rstrip().endswith(f"# {marker}"))


class HandBatchNorm(nn.Module):
    """A batch norm written by hand whose running mean keeps every batch's autograd history."""

    def __init__(self, features: int, momentum: float = 0.1, keep_history: bool = True):
        super().__init__()
        self.momentum, self.keep_history = momentum, keep_history
        self.gamma = nn.Parameter(torch.ones(features))
        self.beta = nn.Parameter(torch.zeros(features))
        self.exp_mean = torch.zeros(features)

    def forward(self, x):
        mean = x.mean(dim=0)
        m = self.momentum
        if self.keep_history:
            self.exp_mean = (1 - m) * self.exp_mean + m * mean  # keeps the history
        else:
            self.exp_mean = (1 - m) * self.exp_mean + m * mean.detach()
        return self.gamma * (x - mean) + self.beta


def _train(keep_history: bool):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), HandBatchNorm(32, keep_history=keep_history), nn.ReLU(),
                          nn.Linear(32, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with watch(model, optimizer, kept_alive_every=1) as w:
        for _ in range(8):
            data = torch.randn(32, 10)
            optimizer.zero_grad()
            output = model(data)  # the model's call
            F.cross_entropy(output, (data[:, 0] > 0).long()).backward()
            optimizer.step()
    return w


def test_history_kept_inside_the_model_is_named_at_the_assignment():
    w = _train(keep_history=True)
    found = [f for f in w.report().findings if f.code == "GD207"]
    assert [f.line for f in found] == [line("keeps the history")], str(w.report())
    assert found[0].evidence["optimizer_steps_spanned"] >= 2
    assert not w.session.internal_errors


def test_running_mean_of_detached_statistics_is_silent():
    w = _train(keep_history=False)
    assert "GD207" not in w.report().codes, str(w.report())
