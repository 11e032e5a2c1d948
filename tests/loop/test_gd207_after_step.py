"""GD207 after `optimizer.step()`: an accuracy computed from the step's logits is not a kept graph; a running total is."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch


def _train(keep_total: bool):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
    head, aux = nn.Linear(32, 3), nn.Linear(32, 3)
    optimizer = torch.optim.Adam([*model.parameters(), *head.parameters(), *aux.parameters()], lr=1e-3)
    accuracies, total = [], 0.0
    with watch({"model": model, "head": head, "aux": aux}, optimizer) as w:
        for _ in range(12):
            x = torch.randn(32, 10)
            y = x[:, :3].argmax(1)
            h = model(x)
            aux_logits = aux(h)
            loss = F.cross_entropy(head(h), y) + 0.3 * F.cross_entropy(aux_logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            accuracies.append((F.softmax(aux_logits, 1).argmax(1) == y).float().mean().item())
            if keep_total:
                total = total + 0.5 * loss  # KEPT
    assert not w.session.internal_errors, w.session.internal_errors
    return w.report()


def test_accuracy_from_softmax_after_step_is_silent():
    report = _train(keep_total=False)
    assert "GD207" not in report.codes, str(report)


def test_running_total_of_the_loss_after_step_still_fires():
    report = _train(keep_total=True)
    found = [f for f in report.findings if f.code == "GD207"]
    assert found and found[0].line == next(
        i + 1 for i, t in enumerate(open(__file__).read().splitlines()) if t.rstrip().endswith("# KEPT"))
