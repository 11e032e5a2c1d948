"""GD306 names the other findings of the report that explain a stalled loss, before it mentions the data.

The numerics judge a loss from what they measured; a scheduler stepped per batch (GD205)
or probabilities fed to a logits loss (GD501) is found by other observers. Any error or
warning that can keep a loss from falling is named, with its line, and recorded in the
GD306's `explained_by`. A GD306 whose judge found no cause (`cause` is None) told the
user to look at the data: it now says to fix those findings first, and a supervised loss
(`evidence["meant_to_fall"]`) with a cause found is a warning. The codes GD306's own
causes already name (`cause["found"]`) are not named again. Decided from `code`,
`severity`, `cause` and `evidence`, never from the text.
"""

from __future__ import annotations

from graddoctor.conclusions.sentences import also_reported, named
from graddoctor.finding import Finding, Severity
from graddoctor.rules.numerics.gd306_loss_not_decreasing.judge import stalled

# Findings that do not make a loss stall: memory kept alive, an evaluation pass, GD306 itself.
NOT_A_CAUSE = frozenset({"GD207", "GD210", "GD211", "GD306"})


def name_other_causes(findings: list[Finding]) -> list[Finding]:
    """Each GD306 with the report's other errors and warnings that explain it named."""
    others = [f for f in findings if f.code not in NOT_A_CAUSE and f.severity >= Severity.WARNING]
    return [_named(f, others) if f.code == "GD306" else f for f in findings]


def _named(f: Finding, others: list[Finding]) -> Finding:
    already = set((f.cause or {}).get("found", ())) | set(f.explained_by)
    causes = [o for o in others if o.code not in already]
    if not causes:
        return f
    explained_by = (*f.explained_by, *dict.fromkeys(o.code for o in causes))
    if f.cause is not None:
        return f.adding(also_reported(causes), explained_by=explained_by)
    # Its judge found no cause and sent the user to the data: these findings come first now.
    message = (f"{stalled(f.evidence)} Other findings of this report explain it: {named(causes)}. Fix those first; "
               "if the loss still does not fall, look at the data, the labels and the loss function.")
    severity = Severity.WARNING if f.evidence.get("meant_to_fall", True) else f.severity
    return f.with_(message=message, severity=severity, explained_by=explained_by)
