"""Every mechanical fix, applied as printed, removes its finding and brings no new one (SPEC section 5).

Each broken program (tests/fix/printed, or a demo program) has a patched
copy `<name>.fixed.py` holding the printed fix verbatim. The test runs both
under `graddoctor run`, checks that the fix text of the finding is in the
patched copy, and that the patched copy no longer has the finding nor any
other finding the broken one did not have.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graddoctor.rules.parts import demo_programs

HERE = Path(__file__).parent / "printed"

CASES = [
    ("gd107_lstm_tuple_state.py", "GD107"),
    ("gd107_lstm_unpacked.py", "GD107"),
    ("gd210_partly_frozen_sgd.py", "GD210"),
    ("gd106_encoder_left_out.py", "GD106"),
    ("gallery:gd107_rnn_hidden.py", "GD107"),
    ("gallery:gd207_total_loss.py", "GD207"),
]


def _demo(name: str) -> Path:
    """A demo program by file name, wherever its rule keeps it."""
    [path] = [p for p in demo_programs() if p.name == name]
    return path


def _paths(name: str) -> tuple[Path, Path]:
    if name.startswith("gallery:"):
        stem = name.split(":", 1)[1]
        return _demo(stem), HERE / f"gallery_{stem[:-3]}.fixed.py"
    return HERE / name, HERE / f"{name[:-3]}.fixed.py"


def _run(script: Path, tmp: Path) -> list[dict]:
    report = tmp / f"{script.stem}.json"
    proc = subprocess.run([sys.executable, "-m", "graddoctor", "run", "--json", str(report), str(script)],
                          cwd=tmp, capture_output=True, text=True, timeout=300)
    assert report.exists(), proc.stderr[-3000:]
    return json.loads(report.read_text())["findings"]


@pytest.mark.slow  # two `graddoctor run` subprocesses per case: before and after the fix
@pytest.mark.parametrize("name,code", CASES, ids=[c[0] for c in CASES])
def test_printed_fix_applied_removes_the_finding(name, code, tmp_path):
    broken, fixed = _paths(name)
    before = _run(broken, tmp_path)
    finding = next((f for f in before if f["code"] == code), None)
    assert finding is not None, before
    printed = re.search(r"`([^`]+)`", finding["hint"]).group(1)
    assert printed in fixed.read_text(), f"the patched copy does not hold the printed fix `{printed}`"
    after = _run(fixed, tmp_path)
    left = {f["code"] for f in after}
    assert code not in left, after
    assert left <= {f["code"] for f in before} - {code}, after
    assert all(f["severity"] == "info" for f in after), after
