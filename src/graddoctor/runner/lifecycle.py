"""One run of the user's code under a session, the same way for every caller.

attach -> execute the user's code -> classify how it ended -> detach (always)
-> build the report -> merge the static findings (when the source is known)
-> write the report files (atomically).

The code executed is the caller's: a script (`graddoctor run`, `fix`'s edited run),
a notebook cell (`%%graddoctor`), or a block of the user's own code between
`attach()` and `end()` (`watch()`, the framework callbacks, the pytest fixture).
What ended it is kept in an `Ending`, never swallowed: the caller raises it again
where the user should see it (a cell, a callback) or prints its traceback (`run`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from graddoctor.finding import sort_findings
from graddoctor.runner.build_report import build_report
from graddoctor.report.report import Report
from graddoctor.runner.outputs import write_files
from graddoctor.runner.signals import Terminated
from graddoctor.runner.static import executed_files, loaded_modules, merge_static, static_findings
from graddoctor.session.session import Session, StopRun


@dataclass(frozen=True)
class Ending:
    """How the user's code ended: `status` as the report says it (SPEC section 2)."""

    status: str  # completed | crashed | stopped | interrupted
    exception: BaseException | None = None  # what ended it (a crash, Ctrl-C, SIGTERM), to raise again
    exit_status: int | None = None  # a script's own sys.exit code

    @property
    def explained(self) -> BaseException | None:
        """The exception the report explains: a crash's; Ctrl-C is not the user's error to explain."""
        return self.exception if self.status == "crashed" else None


def classify(exc: BaseException | None, *, sys_exit_is_status: bool = False) -> Ending:
    """The Ending of user code that raised `exc` (None: it returned).

    `sys_exit_is_status`: a script's `sys.exit(n)` is its exit status, as under `python`;
    in a cell or a callback it is an exception like any other.
    """
    if exc is None:
        return Ending("completed")
    if isinstance(exc, StopRun):
        return Ending("stopped")  # --max-steps: the run ended as asked
    if isinstance(exc, SystemExit) and sys_exit_is_status:
        return Ending("completed", exit_status=_exit_status(exc))
    if isinstance(exc, (KeyboardInterrupt, Terminated)):
        return Ending("interrupted", exc)  # Ctrl-C or SIGTERM: report what was seen so far
    return Ending("crashed", exc)


def _exit_status(exc: SystemExit) -> int:
    """The process exit status of `sys.exit(code)`; a message is printed as Python prints it."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


class Run:
    """A session over one piece of the user's code, from attach to the written report."""

    def __init__(
        self,
        session: Session,
        *,
        command: str,
        target: str | None = None,
        sys_exit_is_status: bool = False,
        note_internal_errors: bool = True,
    ) -> None:
        self.session = session
        self.command = command
        self.target = target
        self.ending: Ending | None = None
        self.report: Report | None = None
        self._sys_exit_is_status = sys_exit_is_status
        self._note_internal_errors = note_internal_errors
        self._modules_before: set[str] | None = None

    def attach(self) -> "Run":
        if self._modules_before is None:
            self._modules_before = loaded_modules()  # what the user's code imports comes after
        if self.report is None:
            self.ending = None  # attached again (a `watch()` used twice): a new stretch of user code
        self.session.attach()
        return self

    def execute(self, body: Callable[[], object]) -> Ending:
        """Attach, call `body` (the user's code), classify how it ended; detach, whatever happens.

        The user's exception does not propagate from here: it is in the Ending, for the caller
        to raise again after the report."""
        try:
            self.attach()
            try:
                body()
            except BaseException as exc:  # the user's: kept in the Ending, never swallowed
                return self.end(exc)
            return self.end(None)
        finally:
            self.session.detach()  # also when attaching or classifying failed

    def end(self, exc: BaseException | None = None) -> Ending:
        """Classify how the user's code ended (the first call decides) and detach."""
        if self.ending is None:
            self.ending = classify(exc, sys_exit_is_status=self._sys_exit_is_status)
            # Observers judge a run cut short by an exception differently (no final step).
            self.session.crashed = self.ending.exception is not None
        self.session.detach()
        return self.ending

    def finish(
        self,
        exc: BaseException | None = None,
        *,
        static: bool = False,
        script: str | None = None,
        cell: tuple[str, str] | None = None,
    ) -> Report:
        """End (if not yet), then build the report once: later calls return the same report.

        `static`: merge what `lint` says about the code this run executed (`runner/static.py`):
        `script` (a file), `cell` (its shown name and text), and the user's modules imported
        since attach."""
        self.end(exc)
        if self.report is not None:
            return self.report
        ending = self.ending
        report = build_report(self.session, command=self.command, target=self.target, status=ending.status,
                              exc=ending.explained, exit_status=ending.exit_status,
                              note_internal_errors=self._note_internal_errors)
        if static:
            files = executed_files(script, self._modules_before or set())
            found = static_findings(files, dict([cell]) if cell else None)
            report.findings = sort_findings(merge_static(report.findings, found, self.session.observers))
        self.report = report
        return report

    def so_far(self) -> Report:
        """The findings up to now, while attached or after (`watch().report()`): no ending yet."""
        return build_report(self.session, command=self.command)

    def write(self, json_path: str | None, html_path: str | None) -> tuple[bool, bool]:
        """Write the finished report's files, each atomically; (every renderer worked, every file written)."""
        assert self.report is not None, "finish() the run before writing its report"
        return write_files(self.report, json_path, html_path)
