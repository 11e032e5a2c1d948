"""`%%graddoctor` on a cell, without a kernel: the cell goes through the same run lifecycle as a script.

What a notebook used to do differently from `graddoctor run` (the real-kernel tests are
in test_notebook.py, slow): Ctrl-C reported as "stopped", report files written in place
(half a file for a reader, or an empty one when rendering failed), no static findings.
"""

from __future__ import annotations

import argparse
import json
from types import SimpleNamespace

import pytest

from graddoctor.integrations.notebook import run_cell


class FakeShell:
    def __init__(self):
        self.user_ns: dict = {}
        self.execution_count = 4
        self.compile = SimpleNamespace(_filename_map={})


def _opts(**kw) -> argparse.Namespace:
    base = dict(max_steps=None, no_deep=True, json=None, html=None, quiet=True, fail_on="warning")
    base.update(kw)
    return argparse.Namespace(**base)


TRAIN = """\
import torch
from torch import nn
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(4, 3)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_ctrl_c_in_a_cell_is_interrupted_as_in_run_and_raised_again(tmp_path):
    out = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt):
        run_cell(FakeShell(), TRAIN + "raise KeyboardInterrupt\n", _opts(json=str(out)))
    report = json.loads(out.read_text())
    assert report["status"] == "interrupted"  # SPEC section 2; it was "stopped"
    assert report["exception"] is None and report["steps_observed"] == 3


def test_the_users_exception_is_raised_again_after_the_report(tmp_path):
    out = tmp_path / "r.json"
    with pytest.raises(ZeroDivisionError):
        run_cell(FakeShell(), TRAIN + "1 / 0\n", _opts(json=str(out)))
    report = json.loads(out.read_text())
    assert report["status"] == "crashed" and report["exception"]["type"] == "ZeroDivisionError"


def test_a_failed_renderer_leaves_the_previous_file_whole(tmp_path, monkeypatch, capsys):
    from graddoctor.report.report import Report

    out = tmp_path / "r.html"
    out.write_text("the previous report")

    def broken(self):
        raise RuntimeError("renderer bug")

    monkeypatch.setattr(Report, "to_html", broken)
    run_cell(FakeShell(), TRAIN, _opts(html=str(out)))
    assert out.read_text() == "the previous report"  # written in place, it was left empty
    assert "internal error" in capsys.readouterr().err


def test_the_cells_source_is_linted_and_merged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    cell = TRAIN + (
        "def never_called(x):\n"
        "    value = model(x).sum().item()\n"
        "    loss = torch.tensor(value, requires_grad=True)\n"
        "    loss.backward()\n"
    )
    run_cell(FakeShell(), cell, _opts(json=str(out)))
    report = json.loads(out.read_text())
    static = [(f["code"], f["file"], f["line"]) for f in report["findings"] if f.get("source") == "static"]
    # line 1 of the cell is the %%graddoctor line: the `.item()` is on the cell's line 12
    assert static == [("GD101", "Cell In[4]", 12)]
