"""Processes the user's code starts: training that ran where graddoctor could not see it.

Hogwild training (`torch.multiprocessing`, `mp.Process(target=train)`) runs every optimizer step
in child processes. `graddoctor run` watches the process it runs; a report that saw no step and
says "No problems found" of a script that trained for an epoch would mislead. The session counts
the processes the user's code started to run a function of their own (DataLoader workers, pools and
executors run library code, not training) so that the report can say what it did not see.
"""

from __future__ import annotations

import multiprocessing.process
from collections.abc import Callable

from graddoctor.locate import Location, is_user_file, user_location
from graddoctor.session import instrumentation


def declare(owner: str, sessions: Callable[[], list]) -> None:
    """`Process.start` watched for `owner`, telling `sessions()` of each process the user starts."""
    def make(original: Callable) -> Callable:
        def start(self, *args, **kwargs):
            users = _runs_user_code(self)  # read before start(), which deletes the target
            result = original(self, *args, **kwargs)
            if users:
                where = user_location()
                if where.file is not None:
                    for session in sessions():
                        session.processes_started.append(where)
            return result

        return start

    instrumentation.declare(owner, multiprocessing.process.BaseProcess, "start", make)


def _runs_user_code(process) -> bool:
    """Whether a started process runs a function of the user's (`Process(target=train)`, or
    `torch.multiprocessing.spawn(train)`), where training could happen. DataLoader workers,
    pools and executors run library code: no training of the user's is hidden there."""
    target = getattr(process, "_target", None)
    if getattr(target, "__module__", "") == "torch.multiprocessing.spawn":
        args = getattr(process, "_args", ())
        target = args[0] if args else None
    code = getattr(target, "__code__", None)
    return code is not None and is_user_file(code.co_filename)


def note(report, session) -> None:
    """The report's note when no optimizer step ran here but the script started processes."""
    started: list[Location] = session.processes_started
    if session.steps_taken or not started:
        return
    n = len(started)
    lines = sorted({str(where) for where in started})
    report.notes.append(
        f"No optimizer step ran in this process, and the script started {n} process{'es' if n != 1 else ''} "
        f"({', '.join(lines[:3])}): training in child processes (torch.multiprocessing, hogwild) is not "
        "observed, so no finding here speaks for it. To check the training loop, run its function once "
        "in the main process (one worker, called directly) under graddoctor.")
