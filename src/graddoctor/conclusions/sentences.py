"""The sentences conclusions add to a message, each built from findings' fields (code, name, place, subjects)."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.graph.phrases import name_list


def place(f: Finding) -> str:
    """" at file:line" when the finding has a line of the user's, else nothing."""
    return f" at {f.file}:{f.line}" if f.file and f.line else ""


def named(findings: list[Finding]) -> str:
    """"GD205 scheduler-misuse at train.py:12; GD501 ...": the findings, each by code, name and place."""
    return "; ".join(f"{o.code} {o.name}{place(o)}" for o in findings)


def also_reported(findings: list[Finding]) -> str:
    return f" Also reported: {named(findings)}."


def consequence_of_learning_rate(cause: Finding) -> str:
    return (f" This is most likely a consequence of the learning rate ({cause.code} {cause.name}{place(cause)}): "
            "steps that large push units out of their working range. Fix that first.")


def subjects_moved(moved: list[str], codes: list[str]) -> str:
    verb = "is" if len(moved) == 1 else "are"
    return f" Of these, {name_list(moved)} {verb} reported under {', '.join(codes)}."
