"""The correct-code corpus (SPEC section 5): under `graddoctor run`, no error and no warning.

Every script here is a correct training program in the style of a well-known
public example. A false alarm on any of them is a bug in graddoctor; when one
is found in the wild, the script that shows it is added here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Each test is a `graddoctor run` (or watch) subprocess training a real program: 2-120 s apiece
# (median 14 s on a shared, loaded 2-core machine). `make test` runs them all.
pytestmark = pytest.mark.slow

PROGRAMS = sorted((Path(__file__).parent / "programs").glob("*.py"))


@pytest.mark.parametrize("script", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_correct_program_is_silent_under_run(script, tmp_path):
    report_path = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "graddoctor", "run", "--json", str(report_path), str(script)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    report = json.loads(report_path.read_text())
    noisy = [f"{f['code']} line {f['line']}: {f['message']}" for f in report["findings"] if f["severity"] != "info"]
    assert noisy == [], "\n".join(noisy) + "\n" + proc.stdout[-3000:] + proc.stderr[-3000:]
    assert report["status"] == "completed", proc.stderr[-3000:]
    assert proc.returncode == 0, proc.stderr[-3000:]


# The same programs with `watch()` around them, as a user keeps it on inside their own script.
_UNDER_WATCH = """
import json, runpy, sys
import graddoctor
path = sys.argv[1]
sys.argv = [path]
with graddoctor.watch() as w:
    runpy.run_path(path, run_name="__main__")
print(json.dumps([f"{f.code} line {f.line}: {f.message}" for f in w.report().findings
                  if f.severity >= graddoctor.Severity.WARNING]))
"""


@pytest.mark.parametrize("script", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_correct_program_is_silent_under_watch(script, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", _UNDER_WATCH, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    noisy = json.loads(proc.stdout.strip().splitlines()[-1])
    assert noisy == [], "\n".join(noisy)
