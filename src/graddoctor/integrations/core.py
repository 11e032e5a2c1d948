"""What every framework callback shares: one watched training run, attached for `fit`.

A callback creates a `WatchedRun` when training starts and finishes it when
training ends or raises. Finishing always detaches (hooks and patches gone),
builds the Report, prints it, and fails the run when asked. The user's own
exception is never swallowed: the callback only adds the explanation.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

import torch
from torch import nn

from graddoctor.assembly import standard_session
from graddoctor.finding import FAIL_ON
from graddoctor.errors import GradDoctorError
from graddoctor.finding import Severity
from graddoctor.locate import NOWHERE, Location
from graddoctor.report.report import Report
from graddoctor.runner.lifecycle import Run


class GradDoctorFailed(GradDoctorError, AssertionError):
    """Raised at the end of training when findings reach the callback's `fail_on`."""

    def __init__(self, report: Report, fail_on: str) -> None:
        self.report = report
        worst = [f for f in report.findings if f.severity >= Severity.parse(fail_on)]
        lines = [f"graddoctor found {len(worst)} finding(s) at or above {fail_on!r}:"]
        lines += [f"  {f.file}:{f.line}: {f.code} {f.name}: {f.message}" for f in worst]
        super().__init__("\n".join(lines))


def check_options(fail_on: str) -> None:
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}, got {fail_on!r}")


class WatchedRun:
    """A Session in watch mode over one framework-driven training run."""

    def __init__(
        self,
        *,
        target: str,
        models: nn.Module | dict[str, nn.Module] | None,
        optimizers: Iterable[torch.optim.Optimizer] = (),
        deep: bool = False,
    ) -> None:
        self.target = target
        self.session = standard_session(mode="watch", deep=deep, models=models, optimizers=list(optimizers))
        self._run = Run(self.session, command="watch", target=target)

    @property
    def report(self) -> Report | None:
        """The report, once finished."""
        return self._run.report

    def attach(self) -> "WatchedRun":
        self._run.attach()
        return self

    def add_optimizers(self, optimizers: Iterable[torch.optim.Optimizer], where: Location = NOWHERE) -> None:
        for opt in optimizers:
            self.session.optimizer_created(opt, where)

    def finish(self, exc: BaseException | None = None) -> Report:
        """Detach (first, always) and build the report; idempotent."""
        if self._run.report is not None:
            return self._run.report
        report = self._run.finish(exc)
        # Observers and session refer to each other; break the cycle so that the
        # user's models go when the user drops them, not at the next gc pass
        # (a later session would otherwise discover them as live models).
        self.session.observers.clear()
        return report


class CallbackState:
    """The state both framework callbacks keep: options, the run in progress, its report."""

    _trains_with = "training"  # what the user calls, for the message of report()

    def __init__(self, *, fail_on: str = "never", print_report: bool = True, deep: bool = False) -> None:
        check_options(fail_on)
        self.fail_on = fail_on
        self.print_report = print_report
        self.deep = deep
        self._run: WatchedRun | None = None
        self._report: Report | None = None
        self._redirect = None  # a locate.Redirect while training runs

    def report(self) -> Report:
        """The report of the last training run."""
        if self._report is None:
            raise RuntimeError(
                f"GradDoctorCallback.report(): no {self._trains_with} has finished with this callback yet"
            )
        return self._report

    def _close(self, exc: BaseException | None) -> Report | None:
        """Detach (always), drop the line redirect, keep and return the report."""
        run, self._run = self._run, None
        if run is None:
            return None
        try:
            report = run.finish(exc)
        finally:
            if self._redirect is not None:
                self._redirect.remove()
                self._redirect = None
        self._report = report
        return report


def show(report: Report, file=None) -> None:
    """Print the report (rich, coloured only on a terminal)."""
    from graddoctor.report.terminal import print_report

    print_report(report, file=file or sys.stdout)


def fail_if(report: Report, fail_on: str) -> None:
    if report.fails(fail_on):
        raise GradDoctorFailed(report, fail_on)
