"""Run a program as python runs it, under `graddoctor fix --verify` (which runs it as `run` does)
and inside `graddoctor.watch(deep=True)`, and compare: graddoctor must never change the user's run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_WATCHED = (
    "import runpy, sys\n"
    "import graddoctor\n"
    "path = sys.argv[1]\n"
    "sys.argv = sys.argv[1:]\n"
    "with graddoctor.watch(deep=True):\n"
    "    runpy.run_path(path, run_name='__main__')\n"
)


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1", COLUMNS="100", PYTHONUNBUFFERED="1")


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *argv], cwd=cwd, capture_output=True, text=True, timeout=600, env=_env())


def python(program: Path) -> subprocess.CompletedProcess:
    return _run([str(program)], program.parent)


def fix_verify(program: Path) -> subprocess.CompletedProcess:
    return _run(["-m", "graddoctor", "fix", "--verify", str(program)], program.parent)


def watched(program: Path) -> subprocess.CompletedProcess:
    return _run(["-c", _WATCHED, str(program)], program.parent)


def assert_as_python(program: Path) -> None:
    """The program exits and prints under graddoctor as under python (the report follows its output)."""
    plain = python(program)
    assert plain.returncode == 0, plain.stderr
    for how, ran in (("fix --verify", fix_verify(program)), ("watch(deep=True)", watched(program))):
        assert ran.returncode == plain.returncode, f"{how}: exit {ran.returncode}\n{ran.stdout}\n{ran.stderr}"
        assert ran.stdout.startswith(plain.stdout), f"{how}: output differs\n{ran.stdout}\n{ran.stderr}"
        assert "internal error" not in ran.stdout + ran.stderr, f"{how}:\n{ran.stdout}\n{ran.stderr}"
