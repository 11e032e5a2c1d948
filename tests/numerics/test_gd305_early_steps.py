"""Issue 22 (b): SGD at lr=1.0 on a constant regression target is GD305 at the step, never GD505.

A small ReLU MLP regressing a constant with MSE: the first steps change the weights by
several times their size, every hidden ReLU dies, and from then on only the last bias
moves, oscillating around the target, so the loss stays flat (or rises) and the output
is the same for every sample. The median update ratio then looks healthy; the first
steps' ratios and the loss that does not fall are the evidence. GD505 (constant output)
is true but is the symptom: it is demoted to info and names the learning rate. The near
misses: the same model at a sane lr, a large first step on a loss that then falls, and
a linear model (which diverges instead, and was already GD305).
"""

from __future__ import annotations

from tests.provenance.conftest import line_of, run_script  # noqa: F401  (the in-process `graddoctor run`)

CONSTANT_TARGET = """import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(64, 4)
y = torch.full((64, 1), 3.0)  # every sample has the same target
model = {model}
optimizer = torch.optim.SGD(model.parameters(), lr={lr})
criterion = nn.MSELoss()
for step in range(40):
    pred = model(x)
    loss = criterion(pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""
MLP = "nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))"


def _warnings(ran) -> dict[str, object]:
    return {f.code: f for f in ran.serious()}


def test_lr_one_that_kills_the_relus_is_gd305_at_the_step_not_gd505(run_script):
    train = CONSTANT_TARGET.format(model=MLP, lr="1.0")
    ran = run_script({"train.py": train})
    serious = _warnings(ran)
    assert "GD505" not in serious
    found = serious["GD305"]
    assert found.line == line_of(train, "optimizer.step()")
    assert "too large" in found.message and "did not fall" in found.message
    # the constant output is still said, as the symptom of the learning rate
    [constant] = [f for f in ran.findings if f.code == "GD505"]
    assert str(constant.severity) == "info" and "GD305" in constant.message


def test_a_linear_model_at_lr_one_is_gd305_too(run_script):
    train = CONSTANT_TARGET.format(model="nn.Linear(4, 1)", lr="1.0")
    ran = run_script({"train.py": train})
    serious = _warnings(ran)
    assert "GD505" not in serious
    assert serious["GD305"].line == line_of(train, "optimizer.step()")


def test_the_same_model_at_a_sane_lr_is_silent(run_script):
    ran = run_script({"train.py": CONSTANT_TARGET.format(model=MLP, lr="0.05")})
    assert ran.serious() == []


def test_large_first_steps_on_a_loss_that_then_falls_are_not_a_warning(run_script):
    # lr=0.5: the first step changes the weights by more than half their size, then it converges
    ran = run_script({"train.py": CONSTANT_TARGET.format(model=MLP, lr="0.5")})
    assert ran.serious() == []
