"""`graddoctor run` never loses the report: NaN runs, failing renderers, signals, odd invocations.

Every test runs the real command in a subprocess, as a user would (issue 14).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

NAN_FROM_STEP_1 = """
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    loss = ((model(x) - y) ** 2).mean() * float("nan")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

LONG_TRAINING = """
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
step = 0
while True:
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    step += 1
    if step == 3:
        print("training started", flush=True)
"""


def _env(extra_path: Path | None = None) -> dict[str, str]:
    path = str(ROOT / "src") + (os.pathsep + str(extra_path) if extra_path else "")
    return dict(os.environ, PYTHONPATH=path, NO_COLOR="1", COLUMNS="100", PYTHONUNBUFFERED="1")


def _run(cwd: Path, *args: str, env: dict | None = None, python_flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *python_flags, "-m", "graddoctor", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=180, env=env or _env())


def _write(folder: Path, name: str, source: str) -> None:
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(textwrap.dedent(source))


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_nan_from_the_first_step_with_html_gives_the_full_report(tmp_path):
    _write(tmp_path, "train.py", NAN_FROM_STEP_1)
    ran = _run(tmp_path, "run", "--html", "r.html", "--json", "r.json", "train.py")
    assert ran.returncode == 1, ran.stderr
    assert "GD301" in ran.stdout and "train.py:10" in ran.stdout
    assert "internal error" not in ran.stderr
    page = (tmp_path / "r.html").read_text()
    assert "GD301" in page and page.rstrip().endswith("</html>")
    assert [f["code"] for f in json.loads((tmp_path / "r.json").read_text())["findings"]] == ["GD301"]


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_a_failing_renderer_costs_only_its_own_file(tmp_path):
    # The HTML renderer breaks (patched at start-up, in the real process); the terminal
    # report and the JSON file must still come out, and the old HTML file stays whole.
    patches = tmp_path / "patches"
    _write(patches, "sitecustomize.py", """
        import graddoctor.report.html as html

        def broken(report):
            raise ValueError("renderer broke")

        html.render_html = broken
    """)
    _write(tmp_path, "train.py", NAN_FROM_STEP_1)
    (tmp_path / "r.html").write_text("previous report")
    ran = _run(tmp_path, "run", "--html", "r.html", "--json", "r.json", "train.py", env=_env(patches))
    assert ran.returncode == 3
    assert "GD301" in ran.stdout  # the terminal report was printed
    assert json.loads((tmp_path / "r.json").read_text())["findings"][0]["code"] == "GD301"
    assert (tmp_path / "r.html").read_text() == "previous report"  # not truncated
    errors = [line for line in ran.stderr.splitlines() if "internal error" in line]
    assert len(errors) == 1 and "HTML report r.html" in errors[0] and "renderer broke" in errors[0]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_a_correct_run_writes_whole_files_and_no_temporary_ones(tmp_path):
    # near miss: nothing fails, both files are there, nothing left beside them
    _write(tmp_path, "train.py", NAN_FROM_STEP_1.replace(' * float("nan")', ""))
    ran = _run(tmp_path, "run", "--html", "r.html", "--json", "r.json", "train.py")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "completed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.json", "train.py"]


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_prints_and_writes_the_report_of_what_was_seen(tmp_path, signum, code):
    _write(tmp_path, "train.py", LONG_TRAINING)
    proc = subprocess.Popen([sys.executable, "-m", "graddoctor", "run", "--json", "r.json", "train.py"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                            start_new_session=True)
    try:
        first = proc.stdout.readline()  # wait until the script is training
        assert first == "training started\n", proc.stderr.read() if not first else first
        time.sleep(0.5)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert "graddoctor run train.py" in out and "script interrupted" in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["status"] == "interrupted" and report["steps_observed"] >= 3
    assert "Traceback" not in err  # an interruption is not a crash


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_run_dash_m_from_the_project_root_works_like_python_dash_m(tmp_path):
    _write(tmp_path, "pkg/__init__.py", "")
    _write(tmp_path, "pkg/helpers.py", "VALUE = 7\n")
    _write(tmp_path, "pkg/train.py", """
        import sys
        from pkg.helpers import VALUE
        print("spec", __spec__.name, "path0", sys.path[0], "value", VALUE, "args", sys.argv[1:])
    """)
    _write(tmp_path, "pkg/__main__.py", "print('package main', __spec__.name)\n")
    # -P: sys.path starts without the current directory, as it does for the console script
    ran = _run(tmp_path, "run", "-m", "pkg.train", "--epochs", "2", python_flags=("-P",))
    assert ran.returncode == 0, ran.stderr
    assert f"spec pkg.train path0 {tmp_path} value 7 args ['--epochs', '2']" in ran.stdout
    ran = _run(tmp_path, "run", "-m", "pkg", python_flags=("-P",))
    assert ran.returncode == 0, ran.stderr
    assert "package main pkg.__main__" in ran.stdout
    # near miss: a module that does not exist is still a usage error
    ran = _run(tmp_path, "run", "-m", "pkg.absent", python_flags=("-P",))
    assert ran.returncode == 2 and "no module named 'pkg.absent'" in ran.stderr


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_a_latin1_script_with_a_coding_line_runs(tmp_path):
    source = "# -*- coding: latin-1 -*-\nprint('modèle prêt')\n"
    (tmp_path / "train.py").write_bytes(source.encode("latin-1"))
    ran = _run(tmp_path, "run", "train.py")
    assert ran.returncode == 0, ran.stderr
    assert "modèle prêt" in ran.stdout
    # near miss: latin-1 bytes without a coding line are not UTF-8, and are refused in one line
    (tmp_path / "bad.py").write_bytes("print('modèle')\n".encode("latin-1"))
    ran = _run(tmp_path, "run", "bad.py")
    assert ran.returncode == 2 and "bad.py is not a Python script" in ran.stderr


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_an_option_after_the_script_name_is_pointed_out_once(tmp_path):
    _write(tmp_path, "train.py", "import sys\nprint('args', sys.argv[1:])\n")
    ran = _run(tmp_path, "run", "train.py", "--json", "out.json", "--epochs", "3")
    assert ran.returncode == 0, ran.stderr
    assert "args ['--json', 'out.json', '--epochs', '3']" in ran.stdout
    assert not (tmp_path / "out.json").exists()
    notes = [line for line in ran.stderr.splitlines() if "--json" in line]
    assert len(notes) == 1
    assert "went to the script" in notes[0] or "the script received it" in notes[0]
    assert "graddoctor run --json out.json train.py" in notes[0]
    # near miss: the same options before the script name, and the script's own options after it
    ran = _run(tmp_path, "run", "--json", "out.json", "train.py", "--epochs", "3")
    assert ran.returncode == 0 and ran.stderr == ""
    assert (tmp_path / "out.json").exists()


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_a_second_ctrl_c_aborts_at_once_without_waiting_for_the_report(tmp_path):
    # The report is made slow on purpose (patched at start-up, in the real process):
    # a user who presses Ctrl-C twice must not wait for it.
    patches = tmp_path / "patches"
    _write(patches, "sitecustomize.py", """
        import time
        import graddoctor.runner.outputs as outputs

        def slow(report):
            time.sleep(60)

        outputs.print_terminal = slow
    """)
    _write(tmp_path, "train.py", LONG_TRAINING)
    proc = subprocess.Popen([sys.executable, "-m", "graddoctor", "run", "--json", "r.json", "train.py"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(patches), start_new_session=True)
    try:
        assert proc.stdout.readline() == "training started\n"
        proc.send_signal(signal.SIGINT)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "stopping without a report" in err
    assert not (tmp_path / "r.json").exists()  # had it waited for the report, the file would be there
