"""The one type that travels between producers and reporters: a Finding."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any

from graddoctor.json_numbers import number_in, number_out


class Severity(enum.IntEnum):
    """Ordered so that `max()` gives the worst; the JSON carries the lowercase name."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> "Severity":
        return cls[text.upper()]

    def __str__(self) -> str:
        return self.name.lower()


# The `--fail-on` levels, worst first, then "never": derived from Severity, so the CLI, the lint
# configuration and the pytest plugin cannot disagree on them.
FAIL_ON = (*(str(s) for s in sorted(Severity, reverse=True)), "never")


@dataclass(frozen=True)
class Related:
    """Another line involved in a finding (the backward line, the `no_grad` entry...)."""

    file: str | None
    line: int | None
    note: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "note": self.note}


@dataclass(frozen=True)
class Finding:
    """One diagnosis: what is wrong, where in the user's code, and the fix.

    `file`/`line`/`column` point into the user's code (never into torch or
    graddoctor); they are None only where no user line exists.

    Frozen: a step that changes a finding (a conclusion, the static merge, the
    fix attached) makes a new one with `with_`, so no producer's finding changes
    behind its back. `related` and `subjects` are lists for their readers and
    are never mutated. Conclusions decide from the structured fields (`code`,
    `subjects`, `evidence`, `cause`, `explained_by`), never from the text.
    """

    code: str
    name: str
    severity: Severity
    message: str
    hint: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    related: list[Related] = field(default_factory=list)
    subjects: list[str] = field(default_factory=list)
    step: int | None = None
    rank: int | None = None
    source: str | None = None  # "static": found by reading the code, not confirmed by the run
    # The edit of the user's source that removes the finding, when one is known: the JSON's "fix"
    # object (SPEC section 2: {"diff", "verified", "loss_before", "loss_after", "new_findings"}). Named
    # `edit` here because "fix" in words is `hint`; the JSON keeps its field name.
    edit: dict[str, Any] | None = None
    # The quantities the run measured that the judgement rests on, e.g. {"update_ratio": 3e-9, "lr": 1e-7}.
    evidence: dict[str, Any] = field(default_factory=dict)
    # Codes of other findings of the report that explain this one (it is their consequence).
    explained_by: tuple[str, ...] = ()
    # What the judge found the cause to be, as data: {"lr": "too_large"}, {"found": ["GD305"]}.
    cause: dict[str, Any] | None = None

    def with_(self, **changes: Any) -> "Finding":
        """This finding with `changes` applied (a new Finding; this one is left as it is)."""
        return dataclasses.replace(self, **changes)

    def adding(self, sentence: str, **changes: Any) -> "Finding":
        """This finding with `sentence` added to its message, and `changes` applied.

        The one way a later step (a conclusion, the explainer) extends what a finding says: the
        sentence is built from fields, and nothing reads the message to decide anything.
        """
        return self.with_(message=self.message + sentence, **changes)

    def key(self) -> tuple:
        """Identity used to drop repeats of the same diagnosis across steps."""
        return (self.code, self.file, self.line, tuple(sorted(self.subjects)))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "name": self.name,
            "severity": str(self.severity),
            "message": self.message,
            "hint": self.hint,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "related": [r.to_json() for r in self.related],
            "subjects": list(self.subjects),
            "step": self.step,
        }
        if self.rank is not None:
            out["rank"] = self.rank
        if self.source is not None:
            out["source"] = self.source
        if self.edit is not None:
            out["fix"] = self.edit
        out["evidence"] = {name: number_out(value) for name, value in self.evidence.items()}
        out["explained_by"] = list(self.explained_by)
        if self.cause is not None:
            out["cause"] = self.cause
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Finding":
        return cls(
            code=data["code"],
            name=data["name"],
            severity=Severity.parse(data["severity"]),
            message=data["message"],
            hint=data.get("hint", ""),
            file=data.get("file"),
            line=data.get("line"),
            column=data.get("column"),
            related=[Related(r.get("file"), r.get("line"), r.get("note", "")) for r in data.get("related", [])],
            subjects=list(data.get("subjects", [])),
            step=data.get("step"),
            rank=data.get("rank"),
            source=data.get("source"),
            edit=data.get("fix"),
            evidence={name: number_in(value) for name, value in (data.get("evidence") or {}).items()},
            explained_by=tuple(data.get("explained_by", ())),
            cause=data.get("cause"),
        )


def sort_findings(findings: list[Finding]) -> list[Finding]:
    """Worst first, causes before the symptoms they explain (`explained_by`), then in the order of the
    user's file and line."""
    return sorted(
        findings,
        key=lambda f: (-int(f.severity), bool(f.explained_by), f.file or "~", f.line or 0, f.code),
    )
