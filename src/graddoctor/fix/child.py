"""The edited program's run, in a process of its own: `python -m graddoctor.fix.child OUT ROOT COPY MAX_STEPS SCRIPT ARGS...`.

A fresh interpreter imports the edited copies of the user's modules, not the ones the first run
imported. Files of the temporary copy (COPY) are shown under their real names (below ROOT), so
findings of both runs compare line by line. Writes {"report": ..., "lines": [per backward line's loss series], "internal_errors": [...]} to OUT;
the script's own prints go to stdout, which the parent reads.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    out, root, copy, max_steps, script, *args = argv
    from graddoctor.fix.losses import line_losses
    from graddoctor.locate import display_path, name_files
    from graddoctor.runner.outputs import write_atomically
    from graddoctor.runner.script import run_target

    def real_name(filename: str) -> str | None:
        if filename.startswith(copy + os.sep):
            return display_path(root + filename[len(copy):])
        return None

    name_files(real_name)
    outcome = run_target(script, args, max_steps=int(max_steps) if max_steps else None)
    data = {"report": outcome.report.to_dict(), "lines": [s.to_json() for s in line_losses(outcome.session)],
            "internal_errors": list(outcome.session.internal_errors)}
    # Atomically: the parent reads the file only if it exists, so never half of it.
    write_atomically(out, json.dumps(data, allow_nan=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
