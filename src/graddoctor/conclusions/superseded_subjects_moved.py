"""A more specific rule takes its subjects from the generic finding it supersedes.

A rule names the codes it supersedes (GD401 supersedes GD104: under DDP an unused
parameter is the same fact, with the DDP-specific consequence and fix; GD110 says why
a GD104 parameter got no gradient). The generic finding keeps only the subjects no
other finding explains, says where the others went, and is dropped when none is left.
Decided from `code` (through the catalogue's `supersedes`) and `subjects`.
"""

from __future__ import annotations

from graddoctor.conclusions.sentences import subjects_moved
from graddoctor.finding import Finding
from graddoctor.rules import get_rule


def drop_superseded(findings: list[Finding]) -> list[Finding]:
    """Remove the subjects that a more specific rule already explains from the generic finding."""
    covered: dict[str, dict[str, str]] = {}  # superseded code -> subject -> the code explaining it
    for f in findings:
        for code in get_rule(f.code).supersedes:
            for subject in f.subjects:
                covered.setdefault(code, {}).setdefault(subject, f.code)
    if not covered:
        return findings
    out = []
    for f in findings:
        taken = covered.get(f.code)
        if taken and f.subjects:
            left = [s for s in f.subjects if s not in taken]
            if not left:
                continue
            if len(left) != len(f.subjects):
                # the message was written for every subject: say which ones the other finding has
                moved = [s for s in f.subjects if s in taken]
                f = f.adding(subjects_moved(moved, sorted({taken[s] for s in moved})), subjects=left)
        out.append(f)
    return out
