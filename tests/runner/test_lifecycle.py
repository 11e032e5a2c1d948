"""The one run lifecycle (`runner/lifecycle.py`): every caller's user code ends the same way.

attach -> execute -> classify -> detach (always) -> report -> static merge -> atomic files.
"""

from __future__ import annotations

import json
import os

import pytest
import torch
from torch import nn

from graddoctor.assembly import standard_session
from graddoctor.runner.lifecycle import Ending, Run, classify
from graddoctor.runner.signals import Terminated
from graddoctor.session.session import StopRun


def _train(model, opt, steps=3):
    for _ in range(steps):
        loss = model(torch.randn(4, 3)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


@pytest.mark.parametrize(
    ("exc", "status", "kept"),
    [
        (None, "completed", False),
        (StopRun(), "stopped", False),
        (KeyboardInterrupt(), "interrupted", True),
        (Terminated(), "interrupted", True),
        (ValueError("boom"), "crashed", True),
        (SystemExit(2), "crashed", True),  # in a cell or a callback sys.exit is an exception like any
    ],
)
def test_every_ending_is_classified_one_way(exc, status, kept):
    ending = classify(exc)
    assert ending.status == status
    assert (ending.exception is exc) if kept else ending.exception is None
    # only a crash is explained in the report: Ctrl-C is not the user's error
    assert ending.explained is (exc if status == "crashed" else None)


def test_a_scripts_sys_exit_is_its_exit_status():
    assert classify(SystemExit(3), sys_exit_is_status=True) == Ending("completed", None, 3)
    assert classify(SystemExit(None), sys_exit_is_status=True).exit_status == 0


def _run(model=None, opt=None, **kwargs) -> Run:
    session = standard_session(mode="run", deep=False, models=model, optimizers=opt, **kwargs)
    return Run(session, command="run", target="t")


def test_execute_keeps_the_users_exception_and_detaches():
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    run = _run()
    error = RuntimeError("the user's")

    def body():
        _train(model, opt, 2)
        raise error

    ending = run.execute(body)
    assert ending.status == "crashed" and ending.exception is error
    assert not run.session.attached
    assert not model._forward_hooks and not model._backward_hooks  # nothing of ours left on the user's model
    assert run.session.crashed
    report = run.finish()
    assert report.status == "crashed" and report.exception["type"] == "RuntimeError"
    assert run.finish() is report  # built once


def test_execute_detaches_when_attaching_itself_fails(monkeypatch):
    run = _run()
    detached = []
    monkeypatch.setattr(run.session, "detach", lambda: detached.append(True))

    def broken_start(*a, **k):
        raise RuntimeError("our bug")

    monkeypatch.setattr(run.session, "attach", broken_start)
    with pytest.raises(RuntimeError, match="our bug"):
        run.execute(lambda: None)
    assert detached


def test_ctrl_c_is_interrupted_and_not_explained():
    run = _run()

    def body():
        raise KeyboardInterrupt

    ending = run.execute(body)
    report = run.finish()
    assert ending.status == report.status == "interrupted"
    assert isinstance(ending.exception, KeyboardInterrupt)
    assert report.exception is None


def test_max_steps_stops_cleanly():
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    run = _run(max_steps=2)
    ending = run.execute(lambda: _train(model, opt, 10))
    assert ending == Ending("stopped")
    assert not run.session.crashed
    assert run.finish().steps_observed == 2


def test_static_merge_of_a_cell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = (
        "\nimport torch\n\n"
        "def never_called(model, x):\n"
        "    value = model(x).sum().item()\n"
        "    loss = torch.tensor(value, requires_grad=True)\n"
        "    loss.backward()\n"
    )
    run = _run()
    run.execute(lambda: exec(compile(source, "Cell In[7]", "exec"), {}))
    report = run.finish(static=True, cell=("Cell In[7]", source))
    static = [(f.code, f.file, f.line, f.source) for f in report.findings if f.source == "static"]
    assert static == [("GD101", "Cell In[7]", 5, "static")]


def test_report_files_are_written_atomically(tmp_path, monkeypatch):
    run = _run()
    run.execute(lambda: None)
    run.finish()
    target = tmp_path / "r.json"
    target.write_text("previous")
    replaced = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (replaced.append((a, b)), real(a, b)))
    assert run.write(str(target), None) == (True, True)
    assert [os.path.basename(b) for _, b in replaced] == ["r.json"]
    assert json.loads(target.read_text())["status"] == "completed"
