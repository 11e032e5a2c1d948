"""PyTorch's warnings name the user's line under graddoctor, as they do without it."""

from __future__ import annotations

import contextlib
import warnings

import pytest
import torch
from torch import nn
from torch.nn import functional as F

import graddoctor

SOFTMAX_SCRIPT = """\
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
for step in range(3):
    optimizer.zero_grad()
    probs = F.softmax(model(x))
    loss = F.nll_loss(torch.log(probs), y)
    loss.backward()
    optimizer.step()
"""


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_softmax_without_dim_names_the_script_line_under_run(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=SOFTMAX_SCRIPT)
    lines = [ln for ln in ran.stderr.splitlines() if "Implicit dimension choice for softmax" in ln]
    assert lines, ran.stderr
    assert lines[0].split(": UserWarning")[0].endswith("train.py:11"), ran.stderr
    assert "graddoctor" not in lines[0]
    assert "probs = F.softmax(model(x))" in ran.stderr


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


def _line_of(text: str) -> int:
    import inspect

    source, start = inspect.getsourcelines(_train_with_warnings)
    return start + next(i for i, ln in enumerate(source) if text in ln)


def _train_with_warnings(model, optimizer, scheduler):
    x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
    for epoch in range(2):
        optimizer.zero_grad()
        probs = F.softmax(model(x))  # UserWarning from Python, stacklevel=3
        loss = F.nll_loss(torch.log(probs), y)
        loss.backward()
        optimizer.step()
        scheduler.step(epoch)  # the epoch argument is deprecated: UserWarning, stacklevel=2
    # A C++ TORCH_WARN: it names the innermost Python frame, the caller of torch.tensor.
    return torch.tensor(loss)


def _records(deep: bool) -> list[warnings.WarningMessage]:
    torch.manual_seed(0)
    model = _Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with graddoctor.watch(model, optimizer, deep=deep):
            _train_with_warnings(model, optimizer, scheduler)
    return caught


def _sites(caught, needle: str) -> set[tuple[str, int]]:
    return {(w.filename, w.lineno) for w in caught if needle in str(w.message)}


def test_warnings_under_watch_name_the_users_lines():
    for deep in (False, True):
        caught = _records(deep)
        here = __file__
        assert _sites(caught, "Implicit dimension choice") == {(here, _line_of("probs = F.softmax"))}, deep
        assert _sites(caught, "epoch parameter") == {(here, _line_of("scheduler.step(epoch)"))}, deep
        assert _sites(caught, "copy construct") == {(here, _line_of("return torch.tensor(loss)"))}, deep
        assert not [w for w in caught if "graddoctor" in w.filename and "tests" not in w.filename]


def test_a_warning_that_does_not_pass_our_wrappers_is_left_where_python_puts_it():
    # Near miss: scheduler.step() is wrapped by graddoctor but this warning names the caller
    # through torch's own frames; it must come out exactly as without graddoctor.
    def run(watched: bool) -> set[tuple[str, int]]:
        model = _Net()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with graddoctor.watch(model, optimizer) if watched else contextlib.nullcontext():
                scheduler.step()  # before optimizer.step()
        return _sites(caught, "before `optimizer.step()`")

    plain = run(False)
    assert plain
    assert run(True) == plain


def test_the_warning_hook_is_removed_after_watch():
    before = warnings._showwarnmsg
    with graddoctor.watch(_Net()):
        assert warnings._showwarnmsg is not before
    assert warnings._showwarnmsg is before
