"""GD301/GD306 point at the loss line, and one escalated deep step finds the op that made a NaN.

Real tiny models trained with real torch. The NaN-making op sits in a helper
called from the model's forward; the loop clears non-finite gradients before
stepping (as some training loops do), so the weights stay finite and the next
step makes the NaN again, where the escalated window sees it being made.
"""

from __future__ import annotations

import inspect

import pytest
import torch
from torch import nn

import graddoctor

# --- the model under test ----------------------------------------------------------------------


def log_features(h):
    return torch.log(torch.relu(h))  # NaN-ORIGIN: log(0) = -inf where relu gave 0


class LogNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(4, 8)
        self.b = nn.Linear(8, 1)

    def forward(self, x):
        return self.b(log_features(self.a(x)))


class FiniteNet(LogNet):
    def forward(self, x):
        return self.b(torch.log1p(torch.relu(self.a(x))))


def _line(marker: str) -> int:
    lines = inspect.getsource(inspect.getmodule(_line)).splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text and "_line(" not in text)


def _watched(model_cls, steps: int = 6, **opts):
    torch.manual_seed(0)
    model = model_cls()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with graddoctor.watch(model, optimizer, **opts) as w:
        torch.manual_seed(1)
        _train_with(model, optimizer, steps)
    return w, model


def _train_with(model, optimizer, steps: int) -> None:
    for _ in range(steps):
        x = torch.randn(16, 4)
        y = torch.randn(16, 1)
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()  # WATCHED-LOSS
        loss.backward()  # WATCHED-BACKWARD
        for p in model.parameters():
            p.grad.nan_to_num_(0.0, posinf=0.0, neginf=0.0)
        optimizer.step()


def _provenance(w):
    return next(o for o in w.observers if o.name == "provenance")


def _modes() -> int:
    return torch._C._len_torch_function_stack()


# --- watch(): escalation turns deep recording on for the next step --------------------------------


def test_watch_escalates_and_finds_the_forward_op_that_made_the_nan():
    w, _ = _watched(LogNet)
    found = [f for f in w.report().findings if f.code == "GD301"]
    assert found, [f.code for f in w.report().findings]
    gd301 = found[0]
    # SPEC's place for GD301 is the loss line (learned in the escalated step); the op that
    # made the NaN comes first among the related lines, and the message names it.
    assert gd301.line == _line("# WATCHED-LOSS")
    assert [r.line for r in gd301.related] == [_line("# NaN-ORIGIN"), _line("# WATCHED-BACKWARD")]
    assert "`log`" in gd301.message and "log_features()" in gd301.message
    assert f"test_nan_origin.py:{_line('# NaN-ORIGIN')}" in gd301.message
    provenance = _provenance(w)
    assert provenance.escalation == "done"
    assert not provenance.active and not provenance.holds_function_mode
    assert _modes() == 0


def test_finite_training_never_opens_a_window():
    w, _ = _watched(FiniteNet)
    provenance = _provenance(w)
    assert provenance.escalation is None
    assert not provenance._ever_active  # the recorder was never pushed
    assert not provenance.recorder.non_finite.watch
    assert not [f for f in w.report().findings if f.code in ("GD301", "GD302")]


def test_finite_deep_mode_never_checks_values():
    w, _ = _watched(FiniteNet, deep=True)
    provenance = _provenance(w)
    assert provenance.escalation is None and provenance.recorder.non_finite.origin is None


@pytest.mark.parametrize("model_cls", [LogNet, FiniteNet])
def test_parameters_bit_identical_with_and_without_escalation(model_cls):
    torch.manual_seed(0)
    plain = model_cls()
    optimizer = torch.optim.SGD(plain.parameters(), lr=0.05)
    torch.manual_seed(1)
    _train_with(plain, optimizer, 6)
    _, watched = _watched(model_cls)
    for a, b in zip(plain.parameters(), watched.parameters()):
        assert torch.equal(a, b)


def test_window_is_removed_when_the_users_code_raises():
    torch.manual_seed(0)
    model = LogNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    w = graddoctor.watch(model, optimizer)
    with pytest.raises(ValueError, match="boom"), w:
        _train_with(model, optimizer, 2)  # NaN seen, escalation asked, window opened
        assert _provenance(w).escalation == "open"
        model(torch.randn(2, 4))
        raise ValueError("boom")
    assert _modes() == 0
    assert _provenance(w).escalation == "done"


def test_pending_window_holds_the_mode_slot():
    w = graddoctor.watch(LogNet())
    provenance = _provenance(w)
    assert not provenance.holds_function_mode
    assert provenance.on_deep_request("test", None) is True
    assert provenance.holds_function_mode
    assert provenance.on_deep_request("again", None) is False  # once per session


# --- graddoctor run: deep for its first steps --------------------------------------------------------

RUN_SCRIPT = """\
import torch
from torch import nn


def log_features(h):
    return torch.log(torch.relu(h))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 8)
        self.b = nn.Linear(8, 1)

    def forward(self, x):
        return self.b(log_features(self.a(x)))


torch.manual_seed(0)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(6):
    x = torch.randn(16, 4)
    y = torch.randn(16, 1)
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    for p in model.parameters():
        p.grad.nan_to_num_(0.0, posinf=0.0, neginf=0.0)
    optimizer.step()
"""


def _script_line(script: str, text: str) -> int:
    return next(i for i, line in enumerate(script.splitlines(), 1) if text in line)


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_run_points_at_the_forward_op_with_the_loss_line_related(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=RUN_SCRIPT)
    gd301 = ran.finding("GD301")
    assert gd301["line"] == _script_line(RUN_SCRIPT, "loss = ((model(x)"), ran.stdout
    assert [r["line"] for r in gd301["related"]] == [
        _script_line(RUN_SCRIPT, "return torch.log(torch.relu(h))"), _script_line(RUN_SCRIPT, "loss.backward()")]
    assert "first NaN/Inf made here by `log`" in gd301["related"][0]["note"]
    assert "`log`" in gd301["message"]


# The weights turn NaN at the first step (no sanitising): a window opened after the
# symptom would only see inherited NaN, but `run` watches its first deep steps for NaN
# as well, so the op is still named.
RUN_CORRUPTED = RUN_SCRIPT.replace(
    "    for p in model.parameters():\n        p.grad.nan_to_num_(0.0, posinf=0.0, neginf=0.0)\n", "")


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_run_names_the_op_even_when_the_first_step_corrupts_the_weights(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=RUN_CORRUPTED)
    gd301 = ran.finding("GD301")
    assert gd301["line"] == _script_line(RUN_CORRUPTED, "loss = ((model(x)")
    assert [r["line"] for r in gd301["related"]] == [
        _script_line(RUN_CORRUPTED, "return torch.log(torch.relu(h))"), _script_line(RUN_CORRUPTED, "loss.backward()")]


# --- the loss line of GD306, and its fallback without deep mode -------------------------------------

FLAT = """\
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
nn.init.zeros_(model[2].weight)
nn.init.zeros_(model[2].bias)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(60):
    x = torch.randn(64, 8)
    y = torch.randint(0, 2, (64,))
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
"""


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_run_gd306_points_at_the_loss_line(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=FLAT)
    gd306 = ran.finding("GD306")
    assert gd306["line"] == _script_line(FLAT, "loss = nn.functional")
    assert [r["line"] for r in gd306["related"]] == [_script_line(FLAT, "loss.backward()")]


def test_watch_without_deep_falls_back_to_the_backward_line():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    nn.init.zeros_(model[2].weight)
    nn.init.zeros_(model[2].bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    with graddoctor.watch(model, optimizer) as w:
        for _ in range(60):
            x = torch.randn(64, 8)
            y = torch.randint(0, 2, (64,))
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()  # FLAT-BACKWARD
            optimizer.step()
    gd306 = next(f for f in w.report().findings if f.code == "GD306")
    assert gd306.line == _line("# FLAT-BACKWARD")
    assert gd306.related == []
    assert _provenance(w).escalation is None


# --- never two of our modes at once: a NaN that starts while the kept-alive window is open -------------


class LateNet(LogNet):
    calls = 0

    def forward(self, x):
        LateNet.calls += 1
        h = self.a(x)
        return self.b(log_features(h) if LateNet.calls > 2 else h)


def test_escalation_waits_for_no_other_mode():
    torch.manual_seed(0)
    LateNet.calls = 0
    model = LateNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    depth = []
    with graddoctor.watch(model, optimizer) as w:
        for _ in range(8):
            optimizer.zero_grad()
            loss = ((model(torch.randn(16, 4)) - torch.randn(16, 1)) ** 2).mean()
            depth.append(_modes())
            loss.backward()
            for p in model.parameters():
                p.grad.nan_to_num_(0.0, posinf=0.0, neginf=0.0)
            optimizer.step()
    assert max(depth) == 1 and _modes() == 0
    gd301 = next(f for f in w.report().findings if f.code == "GD301")
    assert gd301.related[0].line == _line("# NaN-ORIGIN")


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_run_reopens_deep_recording_after_its_deep_steps(graddoctor_cli):
    # The NaN starts at step 6, after `run`'s deep steps ended: the escalation pushes the
    # recorder again for one step, and takes it off again.
    script = RUN_SCRIPT.replace(
        "        return self.b(log_features(self.a(x)))",
        "        self.calls = getattr(self, 'calls', 0) + 1\n"
        "        h = self.a(x)\n"
        "        return self.b(log_features(h) if self.calls > 5 else h)",
    ).replace("range(6)", "range(10)") + "assert torch._C._len_torch_function_stack() == 0\n"
    ran = graddoctor_cli("run", "train.py", script=script)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    gd301 = ran.finding("GD301")
    assert gd301["step"] == 6
    assert gd301["line"] == _script_line(script, "loss = ((model(x)")
    assert gd301["related"][0]["line"] == _script_line(script, "return torch.log(torch.relu(h))")
