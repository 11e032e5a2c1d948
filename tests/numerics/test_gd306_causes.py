"""GD306 names a cause only from structured evidence, and only codes the report holds."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import Severity, watch
from graddoctor.conclusions import name_other_causes
from graddoctor.rules import make
from graddoctor.rules.numerics.gd306_loss_not_decreasing.judge import message


def _regression(seed: int = 0):
    torch.manual_seed(seed)
    x = torch.randn(256, 8)
    return x, x[:, :1].abs() + 0.5 * x[:, 1:2] ** 2


def _fit(model, opt, x, y, steps, sched=None):
    with watch(model, opt) as w:
        for _ in range(steps):
            idx = torch.randint(0, 256, (32,))
            opt.zero_grad()
            F.mse_loss(model(x[idx]), y[idx]).backward()
            opt.step()
            if sched is not None:
                sched.step()
    return w.report()


def test_a_schedule_decayed_to_zero_is_named_with_its_step_and_no_code():
    x, y = _regression()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.Sigmoid(), nn.Linear(32, 32), nn.Sigmoid(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.8 ** s)  # ~0 within 32 steps, 160 steps run
    report = _fit(model, opt, x, y, 160, sched)
    found = [f for f in report.findings if f.code == "GD306"]
    assert found, str(report)
    f = found[0]
    assert "by optimizer step 32 of 160" in f.message
    assert f.cause["causes"][0][1] == [] and "GD304" not in f.message and "GD201" not in f.message


def test_a_schedule_that_ends_at_zero_is_no_cause():
    # cosine annealing to 0 over the run: only its last steps are near 0, no reason for a stall
    x, y = _regression()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=1e-9)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=60)
    f = next(f for f in _fit(model, opt, x, y, 60, sched).findings if f.code == "GD306")
    assert "schedule" not in f.message and "GD305" in f.message  # the rate itself was too small


def test_a_dead_functional_output_relu_is_reported_as_constant_output_and_named_as_the_cause():
    x, y = _regression()

    class Regressor(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.Linear(8, 32)
            self.out = nn.Linear(32, 1)

        def forward(self, inputs):
            return F.relu(self.out(torch.tanh(self.hidden(inputs))))

    torch.manual_seed(0)
    model = Regressor()
    nn.init.constant_(model.out.bias, -5.0)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    report = _fit(model, opt, x, y, 60)
    assert "GD505" in report.codes, str(report)
    stalled = [f for f in report.findings if f.code == "GD306"]
    assert all("GD505" in f.explained_by and "GD304" not in f.explained_by for f in stalled)
    order = [f.code for f in report.findings]
    assert all(order.index("GD505") < order.index("GD306") for _ in stalled)  # the cause before the symptom


def _stalled(causes):
    evidence = {"steps": 40, "window": 10, "median_first": 1.0, "median_last": 1.0, "noise": 0.1, "z": 0.0,
                "trend": "flat", "meant_to_fall": True, "policy": False}
    return make("GD306", message(evidence, causes), evidence=evidence, file="train.py", line=9,
                cause={"found": sorted({c for _, codes in causes for c in codes}), "causes": causes})


def test_codes_not_reported_are_never_named():
    measured = _stalled([["no parameter has a gradient when the optimizer steps", ["GD104", "GD202"]]])
    [f] = name_other_causes([measured])
    assert "GD104" not in f.message and "GD202" not in f.message
    assert "no parameter has a gradient" in f.message and f.explained_by == ()


def test_a_cause_that_is_only_an_unreported_finding_goes_and_the_stall_is_information():
    from_loop = _stalled([["gradients are never cleared, so every step applies the sum of all past gradients",
                           ["GD201"]]])
    [f] = name_other_causes([from_loop])
    assert "GD201" not in f.message and f.severity == Severity.INFO and f.cause is None
    reported = make("GD201", "never cleared", file="train.py", line=5)
    out = name_other_causes([from_loop, reported])
    stalled = next(f for f in out if f.code == "GD306")
    assert "(GD201)" in stalled.message and stalled.explained_by == ("GD201",) and stalled.severity == Severity.WARNING
