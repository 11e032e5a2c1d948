"""graddoctor's layers, top to bottom: the one place the architecture is written down.

A module may import only from its own unit or from a unit of a lower layer; units of
one layer may import each other as long as no circle forms between units
(`tests/architecture/test_layers.py` checks both). A unit is a top-level folder or
module of `src/graddoctor/`, except that a rule package is a vertical slice whose parts
sit on different layers: its page is catalogue, its judge, check and edit are rule parts.

Discovery is not an import: the lint engine finds the checks, the editing engine the
edits and the catalogue the pages by their folders, so plug-ins sit above what loads them.
"""

from __future__ import annotations

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("entry points", ("__main__", "cli")),
    ("front: public API, integrations, the fix flow, demo, docs", (
        "graddoctor", "integrations", "watching", "fix", "demo", "docs_build", "agent")),
    ("the run lifecycle: script under a session, report, static merge, ranks", ("runner",)),
    ("wiring: which observers a session gets; helpers built on them", ("assembly", "helpers")),
    ("observers and conclusions: follow the session's events, call the judges, weigh findings", (
        "observers", "conclusions")),
    ("rule parts: runtime judges, static checks, edits", (
        "rules.*.judge", "rules.*.helper", "rules.*.check", "rules.*.edit")),
    ("engines: loop events, loss inputs, layer statistics, deep recording, static analysis, source edits", (
        "loop", "lossdata", "numerics", "provenance", "lint", "editing")),
    ("the session: instrumentation, events, the observer contract", ("session",)),
    ("graph walking and naming, error explanation, rank context", ("graph", "explain", "distributed")),
    ("the report and its renderers", ("report",)),
    ("catalogue and vocabulary: rule pages, Finding, user locations, exit codes", (
        "rules", "rules.*.page", "checklist", "finding", "locate", "exits", "errors", "internal", "json_numbers", "extras",
        "_version")),
]


def unit_of(module: str) -> str:
    """The unit a dotted module belongs to (see the module docstring)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "graddoctor"
    if parts[1] == "rules" and len(parts) >= 4 and parts[3][:2] == "gd":
        if len(parts) == 4:
            return "rules.*.page"
        return f"rules.*.{parts[4]}" if parts[4] in ("judge", "check", "edit") else "rules.*.helper"
    return parts[1]


def layer_of(unit: str) -> int:
    """0 for the top layer, growing downwards; KeyError for a unit no layer names."""
    for index, (_, units) in enumerate(LAYERS):
        if unit in units:
            return index
    raise KeyError(unit)
