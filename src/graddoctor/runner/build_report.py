"""From a session to a Report: the one way, used by `run`, `watch()`, the callbacks and torchrun.

Whatever drove the training (the runner, a `with watch(...)` block, a Lightning or
Transformers callback) hands over the detached session, how the run ended and the
user's exception if any; this adds the explanation of that exception (what the
observers saw first, the message alone as the fallback) and the layer table.
"""

from __future__ import annotations

from typing import Any

from graddoctor.explain.explainer import explain
from graddoctor.finding import Finding
from graddoctor.locate import Location, display_path, exception_location
from graddoctor.report.report import Report
from graddoctor.session import compiled, processes
from graddoctor.session.session import Session

INTERNAL_NOTE = "graddoctor internal error (please report it with a minimal script):\n"


def build_report(
    session: Session,
    *,
    command: str,
    target: str | None = None,
    status: str | None = None,
    exc: BaseException | None = None,
    exit_status: int | None = None,
    note_internal_errors: bool = True,
) -> Report:
    """The Report of `session`; `exc` is the user's exception, explained when the run crashed.

    `note_internal_errors` puts graddoctor's own failures in the report's notes (for
    `watch()` and the callbacks); `graddoctor run` prints them on stderr instead.
    """
    findings = session.findings()
    exception: dict[str, Any] | None = None
    if exc is not None:
        where = exception_location(exc)
        if status == "crashed":
            findings = _with_explained(findings, _explain(session, exc, where))
        exception = {
            "type": type(exc).__name__,
            "message": str(exc).split("\n")[0][:2000],
            "file": display_path(where.file),
            "line": where.line,
        }
    report = Report(
        command=command,
        target=target,
        findings=findings,
        layers=session.layer_rows(),
        status=status,
        exception=exception,
        steps_observed=session.steps_taken,
        steps_by_optimizer=session.discovered.steps_by_name(),
        exit_status=exit_status,
    )
    if note_internal_errors:
        report.notes.extend(INTERNAL_NOTE + error for error in session.internal_errors)
    compiled.add_note(report, session)
    processes.note(report, session)
    return report


def _with_explained(findings: list[Finding], explained: list[Finding]) -> list[Finding]:
    """`findings` and those that explain the crash. An observer may explain it with a finding it already
    reported, adding the lines the exception shows (DDP's GD401 gains the forward pass that raised):
    Findings are frozen, so that version is a new finding, and it takes the place of the one reported."""
    out = list(findings)
    for found in explained:
        same = next((i for i, f in enumerate(out) if f.with_(related=[]) == found.with_(related=[])), None)
        if same is None:
            out.append(found)
        else:
            out[same] = found
    return out


def _explain(session: Session, exc: BaseException, where: Location) -> list[Finding]:
    """What the observers saw explains best; the message alone is the fallback."""
    enriched = session.explain_exception(exc, where)
    if enriched:
        return enriched  # the same exception, explained with the lines the observers saw
    return explain(exc)
