"""A NaN loss, zero gradients and steps without effect after every target was ignored (GD507).

A classification loss whose batch has every target equal to `ignore_index` divides 0 by 0:
GD301 sees the NaN loss at the loss line, and when no batch keeps a target, GD111 sees
gradients that are always zero and GD204 steps that change nothing. GD507 names the cause
(the labels); those findings are its consequences. So a GD301 at the line of a GD507, and,
when GD507 is an error (every checked batch ignored), GD111 and GD204, become information,
`explained_by` GD507. Decided from `code`, `severity`, `file` and `line`, never from text.
"""

from __future__ import annotations

from graddoctor.conclusions.sentences import place
from graddoctor.finding import Finding, Severity

_WHEN_NOTHING_LEARNS = ("GD111", "GD204")


def explained_by_ignored_targets(findings: list[Finding]) -> list[Finding]:
    causes = [f for f in findings if f.code == "GD507" and f.severity >= Severity.WARNING]
    if not causes:
        return findings
    lines = {(c.file, c.line): c for c in causes}
    everything = next((c for c in causes if c.severity >= Severity.ERROR), None)
    out = []
    for f in findings:
        cause = lines.get((f.file, f.line)) if f.code == "GD301" else None
        if cause is None and f.code in _WHEN_NOTHING_LEARNS:
            cause = everything
        if cause is not None and f.severity >= Severity.WARNING:
            f = f.adding(f" This is a consequence of batches whose every target is ignored ({cause.code} {cause.name}"
                         f"{place(cause)}): their loss is NaN or 0 and their gradients are exactly 0. Fix the labels "
                         "first.", severity=Severity.INFO, explained_by=(*f.explained_by, cause.code))
        out.append(f)
    return out
