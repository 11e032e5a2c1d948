"""`lint`, `rules` and `explain` never import torch: they run where torch is absent or slow to load.

`make test-py310` runs them on Python 3.10 with no torch installed at all; this test checks the
same on the main Python, where torch is installed and an import of it would go unnoticed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import contextlib, io, sys
from graddoctor.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(code, "torch" in sys.modules)
"""


@pytest.mark.parametrize("argv", [
    ["lint", "tests/lint/fixtures/gd101.py", "--format", "json"],
    ["rules"],
    ["rules", "GD104"],
    ["explain", "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"],
])
def test_the_command_runs_without_importing_torch(argv):
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    code, imported = done.stdout.split()
    assert code in ("0", "1") and imported == "False", (argv, done.stdout)
