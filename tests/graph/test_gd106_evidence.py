"""GD106 names the line that replaced a layer after the optimizer was built, and is only information
when the optimizer was built from one submodule on purpose (head-only fine-tuning)."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import Severity, watch

_SOURCE = Path(__file__).read_text().splitlines()


def line(marker: str) -> int:
    return next(i + 1 for i, text in enumerate(_SOURCE) if text.rstrip().endswith(f"# {marker}"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        return self.fc(self.features(x))


def _train(model, optimizer, w_steps=4):
    for _ in range(w_steps):
        x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


def test_a_layer_replaced_after_the_optimizer_is_named_at_the_replacing_line():
    torch.manual_seed(0)
    with watch() as w:
        model = Net()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # optimizer built
        model.fc = nn.Linear(16, 3)  # layer replaced
        _train(model, optimizer)
    found = [f for f in w.report().findings if f.code == "GD106"]
    assert len(found) == 1 and found[0].severity == Severity.ERROR
    assert found[0].line == line("layer replaced")
    assert line("optimizer built") in [r.line for r in found[0].related]
    assert found[0].cause == {"optimizer_line": line("optimizer built")}
    assert found[0].evidence["stale_parameters"] == 2


def test_an_optimizer_built_from_the_head_alone_is_information():
    torch.manual_seed(0)
    model = Net()
    optimizer = torch.optim.Adam(model.fc.parameters(), lr=1e-3)
    with watch(model, optimizer) as w:
        _train(model, optimizer)
    found = [f for f in w.report().findings if f.code == "GD106"]
    assert len(found) == 1 and found[0].severity == Severity.INFO
    assert found[0].evidence == {"optimizer_holds": "model.fc", "unused_gradients": 2}
    assert model.features[0].weight.grad is not None  # the oracle: the rest does get gradients
