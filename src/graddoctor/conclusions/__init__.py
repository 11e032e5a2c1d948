"""Conclusions drawn across findings: one module per conclusion, run after every judge has spoken.

A judge sees one code's evidence; a conclusion sees the findings together (one explains
another, one makes another redundant) and decides from their fields (`code`, `subjects`,
`severity`, `cause`, `evidence`, `explained_by`), never their text. Findings are frozen:
each conclusion returns new ones. `conclude` runs them in this order:

1. `drop_superseded`: a specific finding takes its subjects from the generic one it
   supersedes (GD104's subjects moved to GD401, GD110...), first, so that no later
   conclusion names a finding that is about to go;
2. `explained_by_learning_rate`: GD505 demoted to info after a too-large learning rate
   (GD305) or exploding gradients (GD303), before GD306 counts the warnings;
3. `drop_extra_step`: a GD201 at the step line of a GD213 (the wrong optimizer stepped twice) goes;
4. `explained_by_ignored_targets`: GD301 (and, when no batch kept a target, GD111 and GD204)
   demoted to info after GD507 all-targets-ignored, before GD306 counts the warnings;
5. `name_other_causes`: GD306 names the errors and warnings left that explain a stalled loss.
"""

from __future__ import annotations

from graddoctor.conclusions.constant_output_explained_by_learning_rate import explained_by_learning_rate
from graddoctor.conclusions.nan_loss_explained_by_ignored_targets import explained_by_ignored_targets
from graddoctor.conclusions.stalled_loss_names_other_causes import name_other_causes
from graddoctor.conclusions.superseded_subjects_moved import drop_superseded
from graddoctor.conclusions.wrong_step_explains_extra_step import drop_extra_step
from graddoctor.finding import Finding

ORDER = (drop_superseded, explained_by_learning_rate, drop_extra_step, explained_by_ignored_targets, name_other_causes)

__all__ = [
    "ORDER", "conclude", "drop_extra_step", "drop_superseded", "explained_by_ignored_targets",
    "explained_by_learning_rate", "name_other_causes",
]


def conclude(findings: list[Finding]) -> list[Finding]:
    """What is done with the observers' findings taken together: each conclusion of `ORDER` in turn."""
    for conclusion in ORDER:
        findings = conclusion(findings)
    return findings
