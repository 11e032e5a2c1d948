"""`graddoctor run` as a user runs it: the real command in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import graddoctor

SCHEMA = json.loads((Path(graddoctor.__file__).parent / "report" / "schema.json").read_text())

UNUSED_BRANCH = """
import torch
from torch import nn

torch.manual_seed(0)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.unused = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2))
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.encoder(x))

model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(10):
    loss = nn.functional.cross_entropy(model(torch.randn(16, 8)), torch.randint(0, 2, (16,)))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_unused_branch_gives_a_schema_valid_report_naming_exactly_those_parameters(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=UNUSED_BRANCH)
    assert ran.returncode == 1
    jsonschema.validate(ran.report, SCHEMA)
    assert ran.report["status"] == "completed" and ran.report["steps_observed"] == 10
    assert ran.codes() == ["GD104"]
    gd104 = ran.finding("GD104")
    assert gd104["subjects"] == ["model.unused.0.weight", "model.unused.0.bias", "model.unused.2.weight",
                                 "model.unused.2.bias"]
    assert (gd104["file"], gd104["line"]) == ("train.py", 22)
    layers = {row["name"]: row for row in ran.report["layers"]}
    assert layers["model.unused.0"]["has_grad"] is False and layers["model.head"]["has_grad"] is True
    assert "GD104" in ran.stdout and "train.py:22" in ran.stdout and "loss.backward()" in ran.stdout


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_terminal_report_shows_the_source_line_and_the_fix(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=UNUSED_BRANCH, json_report=False)
    lines = ran.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("error GD104"))
    assert lines[head] == "error GD104 parameter-without-gradient  train.py:22:5"
    assert lines[head + 1].strip() == "22 │ loss.backward()"
    assert any(line.startswith("  hint: ") for line in lines[head:])
    assert lines[-1] == "1 error · 10 optimizer steps observed · script completed"


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_correct_script_exits_zero_and_keeps_its_output(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=UNUSED_BRANCH.replace(
        "return self.head(self.encoder(x))", "return self.head(self.encoder(x)) + self.unused(self.encoder(x))"
    ) + "\nprint('trained', step + 1)\n")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.report["findings"] == []
    assert "trained 10" in ran.stdout
    assert "No problems found" in ran.stdout


def test_script_sees_its_own_argv_file_cwd_and_sys_path(graddoctor_cli, tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "helper_mod.py").write_text("VALUE = 42\n")
    ran = graddoctor_cli(
        "run", "sub/probe.py", "--lr", "3", "-x",
        name="sub/probe.py",
        script="""
        import os, sys
        import helper_mod
        print("argv", sys.argv)
        print("name", __name__)
        print("file", __file__)
        print("cwd", os.getcwd())
        print("path0", sys.path[0])
        print("value", helper_mod.VALUE)
        print("spec", __spec__, "package", __package__)
        """,
    )
    assert ran.returncode == 0, ran.stderr
    out = ran.stdout
    assert "argv ['sub/probe.py', '--lr', '3', '-x']" in out
    assert "name __main__" in out
    assert f"file {tmp_path / 'sub' / 'probe.py'}" in out  # absolute, as `python sub/probe.py` gives it
    assert f"cwd {tmp_path}" in out
    assert f"path0 {tmp_path / 'sub'}" in out
    assert "value 42" in out
    assert "spec None package None" in out


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_run_module_with_dash_m(graddoctor_cli, tmp_path):
    pkg = tmp_path / "trainer"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(UNUSED_BRANCH + "\nimport sys\nprint('args', sys.argv[1:])\n")
    ran = graddoctor_cli("run", "-m", "trainer", "--epochs", "2")
    assert ran.returncode == 1, ran.stderr
    assert "args ['--epochs', '2']" in ran.stdout
    assert ran.finding("GD104")["file"] == "trainer/__main__.py"


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_user_exception_is_reported_explained_and_its_traceback_printed(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script="""
        import torch
        model = torch.nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loss = model(torch.randn(2, 4)).mean()
        loss.item().backward()
        """)
    assert ran.returncode == 1
    assert ran.report["status"] == "crashed"
    assert ran.report["exception"] == {
        "type": "AttributeError",
        "message": "'float' object has no attribute 'backward'",
        "file": "train.py",
        "line": 6,
    }
    gd101 = ran.finding("GD101")
    assert (gd101["file"], gd101["line"]) == ("train.py", 6)
    assert "Traceback (most recent call last)" in ran.stderr
    assert 'File "train.py", line 6' in ran.stderr or "train.py\", line 6" in ran.stderr
    assert "runpy" not in ran.stderr and "graddoctor/runner" not in ran.stderr


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
@pytest.mark.parametrize(
    "setup, expected_case",
    [
        ("", "No backward() has run yet"),
        ("model(torch.randn(2, 4)).mean().backward(); opt.zero_grad()", "zero_grad() at train.py:5 set the gradients to None"),
    ],
)
def test_none_grad_zero_family_is_explained(graddoctor_cli, setup, expected_case):
    ran = graddoctor_cli("run", "train.py", script=f"""
        import torch
        model = torch.nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        {setup}
        for p in model.parameters():
            p.grad.zero_()
        """)
    assert ran.returncode == 1
    finding = ran.finding("GD104")
    assert finding["line"] == 7
    assert expected_case in finding["message"]


def test_user_sys_exit_code_passes_through_when_nothing_is_found(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script="import sys\nprint('bye')\nsys.exit(3)\n")
    assert ran.returncode == 3
    assert ran.report["findings"] == [] and ran.report["status"] == "completed"


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_max_steps_stops_cleanly_and_reports(graddoctor_cli):
    ran = graddoctor_cli("run", "--max-steps", "4", "train.py",
                         script=UNUSED_BRANCH.replace("range(10)", "range(10**6)") + "\nprint('UNREACHED-MARKER')\n")
    assert ran.report["status"] == "stopped"
    assert ran.report["steps_observed"] == 4
    assert "UNREACHED-MARKER" not in ran.stdout
    assert ran.codes() == ["GD104"]
    assert ran.returncode == 1


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_fail_on_never_and_quiet(graddoctor_cli):
    ran = graddoctor_cli("run", "--fail-on", "never", "--quiet", "train.py", script=UNUSED_BRANCH)
    assert ran.returncode == 0
    assert "GD104" not in ran.stdout
    assert ran.codes() == ["GD104"]  # the JSON report is still written


@pytest.mark.parametrize(
    "args, content, message",
    [
        (["run", "missing.py"], None, "no such file: missing.py"),
        (["run", "folder"], "dir", "folder is a directory"),
        (["run", "data.bin"], b"\x00\x01\x02binary", "not a Python script"),
        (["run", "--frobnicate", "train.py"], None, "unrecognized arguments: --frobnicate"),
        (["run", "--max-steps", "0", "train.py"], None, "at least 1"),
        (["run", "--fail-on", "loud", "train.py"], None, "invalid choice"),
        (["run"], None, "give a SCRIPT"),
        (["frobnicate"], None, "unknown command"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(graddoctor_cli, args, content, message):
    path = graddoctor_cli.path
    target = args[-1]
    if content == "dir":
        (path / target).mkdir()
    elif isinstance(content, bytes):
        (path / target).write_bytes(content)
    elif content is not None:
        (path / target).write_text(content)
    ran = graddoctor_cli(*args, json_report=False)
    assert ran.returncode == 2
    assert len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert message in ran.stderr


def test_help_exits_zero(graddoctor_cli):
    ran = graddoctor_cli("run", "--help", json_report=False)
    assert ran.returncode == 0 and "--max-steps" in ran.stdout
