"""The count of findings by severity, worded once for every renderer ("1 error, 2 warnings")."""

from __future__ import annotations

from collections.abc import Iterable

from graddoctor.finding import Finding, Severity

WORST_FIRST = (Severity.ERROR, Severity.WARNING, Severity.INFO)


def severity_counts(findings: Iterable[Finding]) -> list[tuple[Severity, str]]:
    """(severity, "N word") for each severity present, worst first; "info" takes no plural s."""
    findings = list(findings)
    parts = []
    for severity in WORST_FIRST:
        n = sum(1 for f in findings if f.severity == severity)
        if n:
            word = str(severity)
            parts.append((severity, f"{n} {word}{'s' if n != 1 and severity != Severity.INFO else ''}"))
    return parts


def counts_text(findings: Iterable[Finding]) -> str:
    """"1 error, 2 warnings" (empty when there is no finding)."""
    return ", ".join(text for _, text in severity_counts(findings))


def applies(fix: dict) -> str:
    """What the terminal says of a finding's known edit."""
    if fix.get("verified") is True:
        return "verified by a re-run; `graddoctor fix --write` applies it"
    if fix.get("verified") is False:
        return "did not verify (see the fix summary); not applied"
    return "`graddoctor fix` can apply it (`--verify` re-runs to prove it, `--write` edits the file)"
