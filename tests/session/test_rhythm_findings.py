"""The iteration fingerprint changes no finding: every gallery program, and the correct-corpus
programs below, give the same findings (code, severity, line, step, message, hint), the same status
and the same exit code under `graddoctor run --json --max-steps 60` with the fingerprint on and off
(`GRADDOCTOR_FINGERPRINT=0`).

The corpus here is one program in three (its runs take 2-120 s each); the whole corpus is compared
by `benchmarks/findings_snapshot.py write --runtime-only` run twice, recorded in docs/performance.md
("Third pass").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
GALLERY = sorted((ROOT / "src" / "graddoctor" / "rules").glob("*/gd*/gd*.py"))
CORPUS = sorted((ROOT / "tests" / "corpus" / "programs").glob("*.py"))[::3]
_KEPT = ("code", "severity", "line", "step", "message", "hint")


def _run(script: Path, tmp: Path, fingerprint: bool) -> dict:
    work = tmp / ("on" if fingerprint else "off")
    work.mkdir()
    copy = work / script.name  # some programs write beside themselves
    shutil.copy(script, copy)
    report = work / "report.json"
    env = {**os.environ, "GRADDOCTOR_FINGERPRINT": "1" if fingerprint else "0"}
    proc = subprocess.run(
        [sys.executable, "-m", "graddoctor", "run", "--json", str(report), "--max-steps", "60",
         "--fail-on", "never", "--quiet", str(copy)],
        cwd=work, capture_output=True, text=True, timeout=600, env=env)
    data = json.loads(report.read_text())
    findings = sorted(json.dumps({k: f.get(k) for k in _KEPT}, sort_keys=True) for f in data["findings"])
    return {"rc": proc.returncode, "status": data["status"], "findings": findings}


@pytest.mark.parametrize("script", GALLERY + CORPUS, ids=[p.stem for p in GALLERY + CORPUS])
def test_same_findings_with_the_fingerprint_on_and_off(script, tmp_path):
    on = _run(script, tmp_path, True)
    off = _run(script, tmp_path, False)
    assert on == off
