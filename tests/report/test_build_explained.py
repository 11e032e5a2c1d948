"""A finding an observer reported, explained again by the crash with the line that raised, is said once, with that line.

Findings are frozen: DDP's GD401, explained by "Expected to have finished reduction", is a new
finding with one more related line; the report keeps that one in the place of the first.
"""

from __future__ import annotations

from graddoctor.finding import Related
from graddoctor.runner.build_report import _with_explained
from graddoctor.rules import make


def test_the_explained_version_takes_the_place_of_the_same_finding_and_others_are_added():
    reported = make("GD401", "unused", subjects=["aux.weight"], file="train.py", line=9)
    raised = reported.with_(related=[*reported.related, Related("train.py", 7, "the next forward pass raised here")])
    other = make("GD104", "no gradient", subjects=["x"], file="train.py", line=9)
    assert _with_explained([reported, other], [raised]) == [raised, other]
    assert _with_explained([other], [raised]) == [other, raised]
    # a different finding at the same place is not the same one
    reworded = make("GD401", "unused, said otherwise", subjects=["aux.weight"], file="train.py", line=9)
    assert _with_explained([reported], [reworded]) == [reported, reworded]
