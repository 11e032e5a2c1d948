"""The magnitudes behind GD304's and GD305's thresholds, measured on real programs.

For each script, run under `graddoctor run`'s session: per layer, its gradient RMS
over the upper-quartile layer's RMS (what GD304 compares with `vanish_ratio`),
median and worst step, the three lowest layers; per optimizer, the update/weight
ratio of the first three measured steps and the median of all (what GD305 judges).
This is how NumericsOptions' defaults were chosen (see options.py for the numbers).
It wraps two Judge methods (numerics/judging.py) to read what they compute; it changes nothing.

    PYTHONPATH=src python benchmarks/calibrate_numerics.py tests/corpus/programs/*.py
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import statistics
import sys

from graddoctor.numerics.judging import Judge
from graddoctor.runner.script import run_target

SEEN: dict = {}
_judge_grads = Judge.grads
_judge_ratio = Judge.ratio


def _grads(self, reading, layer_sq, clips, track):
    layout = reading.layout
    rms = [(layout.rms(i, math.sqrt(sq)), i) for i, sq in enumerate(layer_sq)
           if sq is not None and math.isfinite(sq) and sq > 0]
    if len(rms) >= 3:
        ordered = sorted(v for v, _ in rms)
        reference = ordered[(3 * len(ordered)) // 4]
        for value, i in rms:
            SEEN.setdefault("grads", {}).setdefault(layout.layer_names[i], []).append(value / reference)
    return _judge_grads(self, reading, layer_sq, clips, track)


def _ratio(self, reading, values, track):
    _judge_ratio(self, reading, values, track)
    if track.ratios:
        SEEN.setdefault("ratios", []).append((track.ratios[-1][0], reading.lr, track.kind))


def main(paths: list[str]) -> None:
    Judge.grads, Judge.ratio = _grads, _ratio
    for path in paths:
        SEEN.clear()
        here = os.getcwd()
        os.chdir(os.path.dirname(os.path.abspath(path)))
        with contextlib.redirect_stdout(io.StringIO()):
            outcome = run_target(os.path.abspath(path), [], max_steps=200)
        os.chdir(here)
        codes = sorted({f.code for f in outcome.report.findings if str(f.severity) != "info"})
        lowest = sorted((statistics.median(v), min(v), name) for name, v in SEEN.get("grads", {}).items() if len(v) >= 3)[:3]
        ratios = SEEN.get("ratios", [])
        print(os.path.basename(path), codes,
              "| GD304 median/worst:", ", ".join(f"{n} {m:.1e}/{w:.1e}" for m, w, n in lowest) or "-",
              "| GD305", ratios[0][2] if ratios else "-", f"lr={ratios[0][1]:g}" if ratios else "",
              "first:", ", ".join(f"{r:.2g}" for r, _, _ in ratios[:3]),
              "median:", f"{statistics.median(r for r, _, _ in ratios):.2g}" if ratios else "-")


if __name__ == "__main__":
    main(sys.argv[1:])
