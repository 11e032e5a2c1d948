"""Run the test suite as `make test` / `make test-fast` do and record what it took.

    python benchmarks/test_durations.py [--fast] [--out docs/test-durations.md]

Writes one table row per run: the command, the commit, tests passed / skipped / failed,
the wall time, and the load average before and after (these machines are shared: a figure
without its load says little). The README's test figures are copied from this file.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAST = ["-m", "not slow and not integration and not browser"]


def _counts(tail: str) -> dict[str, int]:
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|skipped|failed|errors?|deselected)", tail)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="the tests of `make test-fast` only")
    parser.add_argument("--out", default=str(ROOT / "docs" / "test-durations.md"))
    args = parser.parse_args()
    command = [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q", *(FAST if args.fast else [])]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "?"
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    ran = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    load_after = os.getloadavg()[0]
    lines = ran.stdout.strip().splitlines()
    # the failures' names, not only the counts: a long run should not have to be repeated to learn them
    tail = "\n".join([line for line in lines if line.startswith(("FAILED", "ERROR"))] + lines[-1:])
    counts = _counts(tail)
    minutes, secs = divmod(round(seconds), 60)
    row = (f"| {datetime.date.today()} | `make {'test-fast' if args.fast else 'test'}` | {commit} | "
           f"{counts.get('passed', 0)} | {counts.get('skipped', 0)} | "
           f"{counts.get('failed', 0) + counts.get('errors', 0) + counts.get('error', 0)} | "
           f"{minutes} min {secs} s | {load_before:.1f} / {load_after:.1f} | {os.cpu_count()} |")
    out = Path(args.out)
    if not out.exists():
        out.write_text(
            "# How long the test suite takes\n\n"
            "Written by `python benchmarks/test_durations.py [--fast]` (`make test-durations`), one row per run.\n"
            "Load is the 1-minute load average before / after the run.\n\n"
            "| date | command | commit | passed | skipped | failed | wall time | load | cores |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
        )
    with out.open("a") as f:
        f.write(row + "\n")
    print(tail)
    print(row)
    return ran.returncode


if __name__ == "__main__":
    raise SystemExit(main())
