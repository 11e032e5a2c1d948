"""`graddoctor run script.py` runs the script exactly as `python script.py` does.

Each test runs the same real script both ways, as subprocesses, and compares what
the user sees: `__file__`, the warnings and their count, the exit code, the losses
of a compiled training step.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from graddoctor.report.report import Report
from graddoctor.finding import Finding, Severity
from graddoctor.cli import run as cli_run

ROOT = Path(__file__).resolve().parents[2]


def _run(cwd: Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1", COLUMNS="100")
    return subprocess.run([sys.executable, *argv], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=timeout)


def _both(tmp_path: Path, name: str, source: str, *args: str, gd: tuple[str, ...] = ()):
    (tmp_path / name).write_text(textwrap.dedent(source))
    plain = _run(tmp_path, name, *args)
    ours = _run(tmp_path, "-m", "graddoctor", "run", "--json", "report.json", *gd, name, *args)
    report = json.loads((tmp_path / "report.json").read_text()) if (tmp_path / "report.json").exists() else None
    return plain, ours, report


def test_a_script_that_changes_directory_still_finds_itself(tmp_path):
    # A common start of real scripts: paths relative to the script, after an os.chdir.
    plain, ours, report = _both(tmp_path, "prepare.py", """
        import os
        here = os.path.dirname(os.path.abspath(__file__))
        os.chdir(os.path.dirname(here))
        with open(os.path.join(here, "config.txt"), "w") as handle:
            handle.write("lr=0.1")
        print("file:", os.path.abspath(__file__) == os.path.join(here, "prepare.py"), os.path.isabs(__file__))
    """)
    assert plain.returncode == 0, plain.stderr
    assert ours.returncode == 0, ours.stdout + ours.stderr
    assert "file: True True" in plain.stdout
    assert "file: True True" in ours.stdout
    assert report["status"] == "completed"
    # the report and its --json file are where the user typed the command, not where the script went
    assert (tmp_path / "report.json").exists()


WARNS_EVERY_STEP = """
    import warnings
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(8):
        x, y = torch.randn(16, 6), torch.randint(0, 3, (16,))
        probs = F.softmax(model(x))                     # torch warns: implicit dim
        loss = F.nll_loss(torch.log(probs), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 2 == 0:
            warnings.warn("validation skipped on odd steps")   # the script's own warning
    print("final loss", round(loss.item(), 6))
"""


def test_warnings_are_shown_as_often_and_where_python_shows_them(tmp_path):
    plain, ours, report = _both(tmp_path, "train.py", WARNS_EVERY_STEP)
    assert plain.returncode == 0 and ours.returncode == 0, ours.stderr

    def warning_lines(stderr: str) -> list[str]:
        return [line for line in stderr.splitlines() if "Warning:" in line]

    assert warning_lines(plain.stderr), plain.stderr
    assert warning_lines(ours.stderr) == warning_lines(plain.stderr)
    assert plain.stdout.splitlines()[-1] in ours.stdout  # same final loss


def test_a_syntax_error_is_the_scripts_error_exit_1_at_its_line(tmp_path):
    plain, ours, report = _both(tmp_path, "train.py", """
        import torch

        model = torch.nn.Linear(4, 1)
        for epoch in range(3):
            loss = model(torch.randn(8, 4)).pow(2).mean(
            loss.backward()
    """)
    assert plain.returncode == 1
    assert ours.returncode == 1, ours.stderr
    assert report["status"] == "crashed"
    assert report["exception"]["type"] == "SyntaxError"
    assert (report["exception"]["file"], report["exception"]["line"]) == ("train.py", 6)
    # stderr shows it as Python does: file, line, caret, no graddoctor frames
    assert 'train.py", line 6' in ours.stderr and "SyntaxError" in ours.stderr
    assert "graddoctor" not in ours.stderr.split("SyntaxError")[0]


def test_a_syntax_error_in_an_imported_user_module_points_at_that_module(tmp_path):
    (tmp_path / "model.py").write_text("import torch\n\nclass Net(torch.nn.Module:\n    pass\n")
    plain, ours, report = _both(tmp_path, "train.py", "from model import Net\nnet = Net()\n")
    assert plain.returncode == ours.returncode == 1
    assert (report["exception"]["file"], report["exception"]["line"]) == ("model.py", 3)
    assert "train.py" in ours.stderr  # the import line is shown, as Python shows it


COMPILED_STEP = """
    import sys

    import torch
    from torch import nn

    torch.manual_seed(0)
    torch.set_num_threads(1)
    backend = sys.argv[1]
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)


    @torch.compile(backend=backend)
    def train_step(x, y):
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        {zero_grad}
        return loss


    for step in range(6):
        x = torch.randn(32, 8)
        loss = train_step(x, x.sum(dim=1, keepdim=True))
        print(f"step {{step}} loss {{loss.item():.6f}}")
"""


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_a_compiled_training_step_runs_as_without_graddoctor(tmp_path, backend):
    # forward, backward and step compiled as one function: dynamo meets graddoctor's wrappers
    # of backward() and step() inside the traced code and must leave them to run as Python.
    source = COMPILED_STEP.format(zero_grad="optimizer.zero_grad()")
    plain, ours, report = _both(tmp_path, "train.py", source, backend)
    assert plain.returncode == 0, plain.stderr
    assert ours.returncode == 0, ours.stdout + ours.stderr
    assert "internal error" not in ours.stderr
    losses = [line for line in plain.stdout.splitlines() if line.startswith("step")]
    assert len(losses) == 6
    assert [line for line in ours.stdout.splitlines() if line.startswith("step")] == losses
    assert report["findings"] == [] and report["steps_observed"] == 6


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_a_bug_in_a_compiled_training_step_is_found_at_the_users_line(tmp_path, backend):
    source = COMPILED_STEP.format(zero_grad="pass  # no zero_grad: gradients add up")
    plain, ours, report = _both(tmp_path, "train.py", source, backend)
    assert ours.returncode == 1, ours.stdout + ours.stderr
    assert "internal error" not in ours.stderr
    finding = next(f for f in report["findings"] if f["code"] == "GD201")
    step_line = next(n for n, text in enumerate((tmp_path / "train.py").read_text().splitlines(), 1)
                     if text.strip() == "optimizer.step()")
    assert (finding["file"], finding["line"]) == ("train.py", step_line)


class _Outcome:
    def __init__(self, exc=None, exit_status=None):
        self.user_exception, self.exit_status = exc, exit_status


def _report(*severities: Severity) -> Report:
    findings = [Finding(code="GD201", name="missing-zero-grad", severity=s, message="m", hint="h") for s in severities]
    return Report(command="run", target="train.py", findings=findings, status="completed")


@pytest.mark.parametrize(
    "code, report, outcome, expected",
    [
        (1, _report(Severity.WARNING), _Outcome(), 1),  # a warning at --fail-on warning
        (1, _report(), _Outcome(exc=RuntimeError("boom")), 1),  # the script raised
        (1, _report(), _Outcome(exit_status=1), 1),  # the script's own sys.exit(1)
        (0, _report(Severity.INFO), _Outcome(), 0),  # info is below the default --fail-on
        (1, _report(), _Outcome(), 3),  # nothing explains a 1: our bug, said as such
        (1, _report(Severity.INFO), _Outcome(), 3),
        (0, _report(Severity.ERROR), _Outcome(), 3),  # an error the exit code hides
        (5, _report(), _Outcome(exit_status=5), 5),  # the script's own code passes through
    ],
)
def test_the_exit_code_is_always_explained_by_the_report(capsys, code, report, outcome, expected):
    assert cli_run._explained(code, report, outcome, "warning") == expected
    assert ("does not explain" in capsys.readouterr().err) == (expected == 3)
