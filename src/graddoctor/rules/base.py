"""What a rule is: a code, a name, a severity, where it is detected, and its doc."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from graddoctor.finding import Finding, Related, Severity

REQUIRED_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")


@dataclass
class Rule:
    code: str
    name: str
    severity: Severity
    detected: str  # "R", "S" or "RS": at runtime and/or statically
    hint: str  # the default fix, in the imperative
    doc: str = ""
    family: str = field(default="", compare=False)
    supersedes: tuple[str, ...] = ()  # codes whose findings this one makes redundant, per subject
    # Shared engines that hold part of this code's judgement because it needs their whole view (the
    # loop audit's event order, the graph walk of a loss, the error patterns of `explain`): named here so
    # that `graddoctor rules CODE` lists every place, and a test checks nothing else produces the code.
    engines: tuple[str, ...] = ()
    # What the run must have measured for a finding of this code to be a warning or an error (runtime codes):
    # printed on the rule's page, and what the finding's `evidence` records. Weaker evidence gives info.
    evidence_needed: str = ""
    # The static finding names the cause's definition (a softmax layer) and the runtime one measures
    # the harm at the loss: when a run reports both, they are one finding at the static line.
    one_with_static: bool = False

    @property
    def summary(self) -> str:
        """The first sentence under "What it does"."""
        section = self.section("What it does")
        first = section.split("\n\n")[0].replace("\n", " ").strip()
        return first

    def section(self, title: str) -> str:
        """The text of one `## title` section of the doc (empty if absent)."""
        pattern = rf"^## {re.escape(title)}[^\n]*\n(.*?)(?=^## |\Z)"
        match = re.search(pattern, self.doc, re.M | re.S)
        return match.group(1).strip() if match else ""

    def finding(
        self,
        message: str,
        *,
        hint: str | None = None,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        related: list[Related] | None = None,
        subjects: list[str] | None = None,
        step: int | None = None,
        severity: Severity | None = None,
        evidence: dict[str, Any] | None = None,
        cause: dict[str, Any] | None = None,
    ) -> Finding:
        return Finding(
            code=self.code,
            name=self.name,
            severity=severity or self.severity,
            message=message,
            hint=hint or self.hint,
            file=file,
            line=line,
            column=column,
            related=list(related or []),
            subjects=list(subjects or []),
            step=step,
            evidence=dict(evidence or {}),
            cause=cause,
        )
