"""GD306 names the other findings of the report that explain a stalled loss, before it mentions the data.

The numerics judge a loss from what they measured; a scheduler stepped per batch (GD205)
or probabilities fed to a logits loss (GD501) is found by other observers. Any error or
warning that can keep a loss from falling is named, with its line, and recorded in the
GD306's `explained_by`. A GD306 whose judge found no cause (`cause` is None) told the
user to look at the data: it now says to fix those findings first, and a supervised loss
(`evidence["meant_to_fall"]`) with a cause found is a warning. The codes GD306's own
causes already name (`cause["found"]`) are not named again. Its own causes name a code only
when the report holds that code as an error or warning: a cause that is only another finding
(a loop finding) goes with it, a cause GD306 measured itself stays, without the code; a
GD306 left with no cause is judged as one that found none. Decided from `code`, `severity`,
`cause` and `evidence`, never from the text.
"""

from __future__ import annotations

from graddoctor.conclusions.sentences import also_reported, named
from graddoctor.finding import Finding, Severity
from graddoctor.rules.numerics.gd306_loss_not_decreasing.judge import message, stalled

# Findings that do not make a loss stall: memory kept alive, an evaluation pass, GD306 itself.
NOT_A_CAUSE = frozenset({"GD207", "GD210", "GD211", "GD306"})


# Causes GD306 takes from another observer's finding, not from its own measurements: without that finding
# in the report, nothing is left of them.
FROM_FINDINGS = frozenset({"GD201", "GD202", "GD203", "GD208", "GD307"})


def name_other_causes(findings: list[Finding]) -> list[Finding]:
    """Each GD306 with the report's other errors and warnings that explain it named."""
    others = [f for f in findings if f.code not in NOT_A_CAUSE and f.severity >= Severity.WARNING]
    reported = {f.code for f in others}
    out = []
    for f in findings:
        if f.code == "GD306":
            f = _only_reported(f, reported)
            if f is None:
                continue
            f = _named(f, others)
        out.append(f)
    return out


def _only_reported(f: Finding, reported: set[str]) -> Finding | None:
    """The GD306 with its own causes naming only codes the report holds (see the module's doc);
    None for a loss not meant to fall left without a cause (its judge would have stayed silent)."""
    causes = (f.cause or {}).get("causes")
    if not causes:
        return f
    kept = []
    for text, codes in causes:
        shown = [c for c in codes if c in reported]
        if codes and not shown and set(codes) <= FROM_FINDINGS:
            continue
        kept.append([text, shown])
    found = sorted({c for _, codes in kept for c in codes})
    explained_by = (*f.explained_by, *(c for c in found if c not in f.explained_by))
    if kept:
        if kept == causes:
            return f.with_(explained_by=explained_by)
        return f.with_(message=message(f.evidence, kept), cause={**f.cause, "found": found, "causes": kept},
                       explained_by=explained_by)
    if not f.evidence.get("meant_to_fall", True):
        return None
    # no cause left: what a GD306 that found none says, as information
    return f.with_(message=message(f.evidence, []), cause=None, severity=Severity.INFO)


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
