"""`python real_pipelines_deep.py REPORT SCRIPT ARGS...`: SCRIPT run as __main__ inside
`graddoctor.watch(deep=True)`, deep mode (cut provenance, graddoctor's TorchFunctionMode) on
for the whole run, not only the first steps as under `graddoctor run`.

The run of `benchmarks/real_pipelines.py --deep` (issue 30: deep mode must be transparent).
Writes the report as JSON to REPORT. Exit code as `graddoctor run`'s: 3 when graddoctor
recorded an internal error, else 1 with an error or warning, else the script's own; the
script's exception propagates (python's traceback, exit 1).
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path


def main() -> int:
    report_path, script, *args = sys.argv[1:]
    import graddoctor

    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    status = 0
    watch = graddoctor.watch(deep=True)
    try:
        with watch:
            try:
                runpy.run_path(script, run_name="__main__")
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        report = watch.report()
        Path(report_path).write_text(report.to_json())
    if watch.session.internal_errors:
        print("\n".join(watch.session.internal_errors), file=sys.stderr)
        return 3
    return 1 if report.fails("warning") else status


if __name__ == "__main__":
    sys.exit(main())
