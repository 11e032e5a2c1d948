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


def test_query_losses_of_first_order_maml_with_per_task_inner_optimizers_are_silent():
    """Each task's inner optimizer steps on a copy; the meta-model's optimizer steps once per meta-batch.
    The query losses live across inner steps of other optimizers, never across two steps of their own."""
    import copy

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1))
    meta_optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with watch(kept_alive_every=1) as w:
        for _ in range(6):
            meta_optimizer.zero_grad()
            query_losses = []
            for _ in range(4):
                x = torch.rand(20, 1) * 10 - 5
                y = torch.sin(x + torch.rand(1))
                learner = copy.deepcopy(model)
                inner_optimizer = torch.optim.SGD(learner.parameters(), lr=0.01)
                for _ in range(3):
                    inner_optimizer.zero_grad()
                    F.mse_loss(learner(x[:10]), y[:10]).backward()
                    inner_optimizer.step()
                inner_optimizer.zero_grad()
                query_losses.append(F.mse_loss(learner(x[10:]), y[10:]))
                query_losses[-1].backward()
                for p, q in zip(model.parameters(), learner.parameters()):
                    p.grad = q.grad / 4 if p.grad is None else p.grad + q.grad / 4
            meta_optimizer.step()
    assert "GD207" not in w.report().codes, str(w.report())
