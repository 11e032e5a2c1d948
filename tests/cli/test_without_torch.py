"""Without torch: lint, explain, rules and checklist work; run, fix, demo and watch() say in one line that
torch is missing (exit 2). `.ci/test-py310` proves the same on a real torch-free install; these tests
hide torch from a subprocess of this venv, so that they run on every `pytest`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Makes `import torch` (and find_spec) fail as it does where torch is not installed.
HIDE_TORCH = textwrap.dedent("""\
    import sys

    class HideTorch:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, HideTorch())
    """)


def graddoctor(tmp_path: Path, *args: str, code: str = "") -> subprocess.CompletedProcess:
    program = HIDE_TORCH + (code or f"from graddoctor.cli import main\nrc = main({list(args)!r})\n"
                                    "assert 'torch' not in sys.modules\nsys.exit(rc)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1")
    return subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.parametrize("command", ["run", "fix", "demo"])
def test_commands_that_run_a_model_say_torch_is_missing(tmp_path, command):
    (tmp_path / "train.py").write_text("print('never runs')\n")
    ran = graddoctor(tmp_path, command, "train.py")
    assert ran.returncode == 2
    assert ran.stdout == ""
    assert ran.stderr.splitlines() == [
        f"graddoctor: error: graddoctor {command} needs the 'torch' package, which is not installed: pip install torch"
    ]


def test_lint_explain_rules_and_checklist_need_no_torch(tmp_path):
    (tmp_path / "train.py").write_text("for x, y in loader:\n    loss = criterion(model(x), y)\n    loss.item().backward()\n")
    ran = graddoctor(tmp_path, "lint", "--format", "json", "train.py")
    assert ran.returncode == 1, ran.stderr
    assert [f["code"] for f in json.loads(ran.stdout)["findings"]] == ["GD101"]
    assert json.loads(ran.stdout)["tool"]["torch"]  # the version, or "not installed"
    for args in (["rules", "GD104"], ["checklist"], ["explain", "RuntimeError: CUDA out of memory"]):
        ran = graddoctor(tmp_path, *args)
        assert ran.returncode == 0, (args, ran.stderr)
        assert ran.stdout


def test_watch_without_torch_is_an_import_error_naming_torch(tmp_path):
    ran = graddoctor(tmp_path, code=textwrap.dedent("""\
        import graddoctor
        graddoctor.Report, graddoctor.Finding, graddoctor.explain  # these need no torch
        try:
            graddoctor.watch
        except ImportError as exc:
            print(exc.name, exc)
        """))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        "torch graddoctor.watch needs the 'torch' package, which is not installed: pip install torch"
    ]
