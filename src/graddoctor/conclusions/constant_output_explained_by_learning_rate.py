"""GD505 after a learning rate that rewrote the weights: the collapse is the symptom, the lr the cause.

A model regressing a constant target with SGD at lr=1.0 takes a few huge first steps,
its ReLU units die, and from then on its output is the same for every sample while
the last bias oscillates. GD505 sees the constant output; GD305 (or GD303) sees the
steps that caused it. SPEC section 5: "when a learning rate already explains a
divergence, that is the cause reported first". So when the report holds a warning
that the learning rate is too large (GD305) or that gradients exploded (GD303), a
GD505 of the same run becomes information that names that finding, and the lr is
what the user is told to fix. A GD505 with no such finding (a dead final ReLU at a
small lr) is left as it is.
"""

from __future__ import annotations

from graddoctor.finding import Finding, Severity
from graddoctor.rules.numerics.gd305_update_ratio_out_of_range.judge import too_large


def _lr_cause(f: Finding) -> bool:
    return f.severity >= Severity.WARNING and (f.code == "GD303" or too_large(f))


def explained_by_learning_rate(findings: list[Finding]) -> list[Finding]:
    """GD505 findings demoted to info, naming the learning-rate finding, when one is in the report."""
    causes = [f for f in findings if _lr_cause(f)]
    if not causes:
        return findings
    cause = causes[0]
    at = f" at {cause.file}:{cause.line}" if cause.file and cause.line else ""
    for f in findings:
        if f.code == "GD505" and f.severity >= Severity.WARNING:
            f.severity = Severity.INFO
            f.message += (f" This is most likely a consequence of the learning rate ({cause.code} {cause.name}{at}): "
                          "steps that large push units out of their working range. Fix that first.")
    return findings
