"""GD505 after a learning rate that rewrote the weights: the collapse is the symptom, the lr the cause.

A model regressing a constant target with SGD at lr=1.0 takes a few huge first steps,
its ReLU units die, and from then on its output is the same for every sample while
the last bias oscillates. GD505 sees the constant output; GD305 (or GD303) sees the
steps that caused it. SPEC section 5: "when a learning rate already explains a
divergence, that is the cause reported first". So when the report holds a warning
that the learning rate is too large (a GD305 whose `cause` says so) or that gradients
exploded (GD303), a GD505 of the same run becomes information, `explained_by` that
finding, and the lr is what the user is told to fix. A GD505 with no such finding (a
dead final ReLU at a small lr) is left as it is. Decided from `code`, `severity` and
`cause`, never from the wording of GD305's message or hint.
"""

from __future__ import annotations

from graddoctor.conclusions.sentences import consequence_of_learning_rate
from graddoctor.finding import Finding, Severity


def _lr_cause(f: Finding) -> bool:
    lr_too_large = f.code == "GD305" and (f.cause or {}).get("lr") == "too_large"
    return f.severity >= Severity.WARNING and (f.code == "GD303" or lr_too_large)


def explained_by_learning_rate(findings: list[Finding]) -> list[Finding]:
    """GD505 findings demoted to info, naming the learning-rate finding, when one is in the report."""
    causes = [f for f in findings if _lr_cause(f)]
    if not causes:
        return findings
    cause = causes[0]
    return [f.adding(consequence_of_learning_rate(cause), severity=Severity.INFO,
                     explained_by=(*f.explained_by, cause.code))
            if f.code == "GD505" and f.severity >= Severity.WARNING else f
            for f in findings]
