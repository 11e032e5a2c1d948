"""The Report: what a run, a diagnose() call, a lint or an explain found."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from graddoctor.finding import Finding, Severity, sort_findings
from graddoctor.report.layers import LayerRow

SCHEMA_ID = "graddoctor.report/1"


@dataclass
class Report:
    """Findings, worst first, plus what is known of the run that produced them.

    `str(report)` is the terminal report (no colour); `to_json()` the
    `graddoctor.report/1` document; `to_html()` a self-contained page.
    """

    command: str = "diagnose"
    target: str | list[str] | None = None
    findings: list[Finding] = field(default_factory=list)
    layers: list[LayerRow] | None = None
    status: str | None = None  # completed | crashed | stopped | interrupted (runs only)
    exception: dict[str, Any] | None = None
    steps_observed: int | None = None  # optimizer steps of the run, all optimizers together
    steps_by_optimizer: dict[str, int] | None = None  # each optimizer's own steps, by the user's name for it
    exit_status: int | None = None  # the user's own sys.exit code
    notes: list[str] = field(default_factory=list)  # said once, below the findings
    ran: str = "script"  # what the run executed, named in the footer ("cell" in a notebook); not in JSON

    def __post_init__(self) -> None:
        self.findings = sort_findings(_dedupe(self.findings))

    @property
    def ok(self) -> bool:
        """True when no finding is an error or a warning (info findings are fine)."""
        return not any(f.severity >= Severity.WARNING for f in self.findings)

    @property
    def codes(self) -> list[str]:
        return sorted({f.code for f in self.findings})

    def worst(self) -> Severity | None:
        return max((f.severity for f in self.findings), default=None)

    def fails(self, fail_on: str) -> bool:
        """Whether a finding reaches `--fail-on` (error, warning, info or never)."""
        if fail_on == "never":
            return False
        threshold = Severity.parse(fail_on)
        return any(f.severity >= threshold for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        from graddoctor._version import __version__

        out: dict[str, Any] = {
            "schema": SCHEMA_ID,
            "tool": {"name": "graddoctor", "version": __version__, "torch": _torch_version()},
            "command": self.command,
            "target": self.target,
        }
        if self.command not in ("lint", "explain"):
            out["status"] = self.status
            out["exception"] = self.exception
            out["steps_observed"] = self.steps_observed
            if self.steps_by_optimizer:
                out["steps_by_optimizer"] = dict(self.steps_by_optimizer)
        out["findings"] = [f.to_json() for f in self.findings]
        if self.command not in ("lint", "explain"):
            out["layers"] = [row.to_json() for row in (self.layers or [])]
        return out

    def steps_text(self) -> str | None:
        """What `steps_observed` counts, for the footer: "38 optimizer steps (opt_G 19, opt_D 19)"."""
        n = self.steps_observed
        if n is None:
            return None
        text = f"{n} optimizer step{'s' if n != 1 else ''}"
        by = self.steps_by_optimizer or {}
        if len(by) > 1:
            text += " (" + ", ".join(f"{name} {count}" for name, count in by.items()) + ")"
        return text

    def to_json(self, indent: int | None = 2) -> str:
        # allow_nan=False: a non-finite float that slipped past LayerRow is a bug to see, not invalid JSON to write.
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_html(self) -> str:
        from graddoctor.report.html import render_html

        return render_html(self)

    def plot(self, path: str) -> str:
        """Write the gradient-flow chart of `layers` to `path` (needs matplotlib)."""
        from graddoctor.report.plot import plot_layers

        return plot_layers(self.layers or [], path)

    def __str__(self) -> str:
        from graddoctor.report.terminal import render_text

        return render_text(self)

    def __repr__(self) -> str:
        return f"<Report {self.command} {len(self.findings)} findings {self.codes}>"

    def _repr_html_(self) -> str:
        from graddoctor.report.html import render_fragment

        return render_fragment(self)


def _torch_version() -> str:
    """The installed torch's version, without importing torch when nothing has (lint, explain)."""
    import sys
    from importlib import metadata

    module = sys.modules.get("torch")
    if module is not None:
        return module.__version__.split("+")[0]
    try:
        return metadata.version("torch").split("+")[0]
    except metadata.PackageNotFoundError:
        return "not installed"


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple] = set()
    out = []
    for f in findings:
        key = f.key() + ((f.rank,) if f.rank is not None else ())
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
