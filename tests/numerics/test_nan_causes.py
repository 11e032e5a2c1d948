"""The cause of a NaN, or none: never uninitialised memory or parameter construction, and a
learning rate that already explains the divergence is named first (SPEC section 5).

Real tiny training programs through the real `graddoctor run` command.
"""

from __future__ import annotations

import pytest
import torch

from graddoctor.provenance.trackers.non_finite import NonFiniteTracker
from tests.provenance.conftest import line_of

LR_10 = """
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(64, 10)
y = torch.randn(64, 1)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=10.0)
for step in range(30):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
"""


def test_lr_10_divergence_leads_with_the_learning_rate_never_the_constructor(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=LR_10)
    [first] = [f for f in ran.report["findings"] if f["code"] in ("GD301", "GD302")]
    assert "The updates diverged" in first["message"] and "the learning rate (10)" in first["message"]
    assert "fix it there" not in first["message"]
    assert first["hint"].startswith("Lower the learning rate")
    built = line_of(LR_10, "model = nn.Sequential(")
    named = [f["line"] for f in ran.report["findings"]] + [r["line"] for f in ran.report["findings"] for r in f["related"]]
    assert built not in named
    assert ran.report["findings"][0]["code"] == first["code"]  # the cause reported first


LOG_PRIOR = """
import torch
from torch import nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 8)
        self.b = nn.Linear(8, 1)
        self.register_buffer("floor", torch.log(torch.zeros(1)))  # -inf, made while building the model

    def forward(self, x):
        h = torch.log(torch.relu(self.a(x)))
        return self.b(torch.maximum(h, self.floor))


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(4):
    loss = model(torch.randn(16, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.grad.nan_to_num_(0.0, 0.0, 0.0)
    opt.step()
"""


def test_nan_made_while_building_the_model_is_not_the_origin(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=LOG_PRIOR)
    [first] = [f for f in ran.report["findings"] if f["code"] in ("GD301", "GD302")]
    assert f"train.py:{line_of(LOG_PRIOR, 'h = torch.log(')}" in first["message"]
    assert "fix it there" in first["message"]  # no divergence here: the op is the cause
    named = [first["line"]] + [r["line"] for r in first["related"]]
    assert line_of(LOG_PRIOR, 'register_buffer("floor"') not in named


NAN_IN_DATA = LOG_PRIOR.replace("h = torch.log(torch.relu(self.a(x)))", "h = torch.relu(self.a(x))").replace(
    "    loss = model(torch.randn(16, 4)).pow(2).mean()",
    "    x = torch.randn(16, 4)\n    if step == 2:\n        x[0, 0] = float('nan')  # a corrupt sample\n"
    "    loss = model(x).pow(2).mean()")


MASKED = NAN_IN_DATA.replace(
    "h = torch.relu(self.a(x))",
    "h = torch.softmax(self.a(x).masked_fill(torch.arange(8) > 5, float('-inf')), dim=-1)  # masked on purpose")


@pytest.mark.parametrize("script, innocent", [
    (NAN_IN_DATA, 'register_buffer("floor"'), (MASKED, "masked on purpose"),
], ids=["built-with-inf", "masked-with-inf"])
def test_nan_from_the_data_names_no_op(graddoctor_cli, script, innocent):
    # The forward only inherits the data's NaN: no op made it, so none is named; an -inf made
    # while building the model, or asked for by value in a mask steps earlier, is not a candidate.
    ran = graddoctor_cli("run", "train.py", script=script)
    [first] = [f for f in ran.report["findings"] if f["code"] in ("GD301", "GD302")]
    assert "fix it there" not in first["message"]
    named = [first["line"]] + [r["line"] for r in first["related"]]
    assert line_of(script, innocent) not in named


def test_uninitialised_memory_is_never_a_nan_origin():
    # What `torch.empty` returns is whatever the memory held: a NaN there is no op's doing.
    tracker = NonFiniteTracker()
    tracker.watch = True
    import sys

    garbage = torch.full((4,), float("nan"))
    for factory in (torch.empty, torch.empty_like, torch.empty_strided, torch.Tensor.new_empty):
        tracker.check(factory, (), {}, garbage, sys._getframe(), step=1)
        assert tracker.origin is None and tracker.watch
    tracker.check(torch.log, (torch.zeros(4),), {}, torch.log(torch.zeros(4)), sys._getframe(), step=1)
    assert tracker.origin is not None and tracker.origin.op == "log"
