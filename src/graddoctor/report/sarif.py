"""A SARIF 2.1.0 log (lint and run): rules carry the catalogue's name, summary, fix and page.

`helpUri` is the rule's published page, `docs/rules/GDnnn.md` in the repository named by
pyproject.toml's `[project.urls] Repository`; results carry `partialFingerprints` that stay
the same when lines move (report/fingerprint.py), so that code scanning does not duplicate them.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from urllib.parse import quote

from graddoctor.finding import Finding, Severity
from graddoctor.report import fingerprint
from graddoctor.rules import get_rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# Where the project lives when graddoctor runs from a source tree without installed metadata;
# the installed package's [project.urls] Repository wins (a test checks that the two agree).
REPOSITORY = "https://github.com/graddoctor/graddoctor"
RULE_PAGE = "{repository}/blob/main/docs/rules/{code}.md"


@functools.cache
def repository() -> str:
    """The repository URL of pyproject.toml's [project.urls], as installed."""
    from importlib import metadata

    try:
        urls = metadata.metadata("graddoctor").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return REPOSITORY
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "repository":
            return url.strip().rstrip("/")
    return REPOSITORY


def help_uri(code: str) -> str:
    return RULE_PAGE.format(repository=repository(), code=code)


def sarif(findings: list[Finding]) -> str:
    """A SARIF 2.1.0 log with one run; rules carry the catalogue's name, summary, fix and page."""
    from graddoctor._version import __version__

    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
    codes = sorted({f.code for f in findings})
    index = {code: i for i, code in enumerate(codes)}
    rules = []
    for code in codes:
        rule = get_rule(code)
        rules.append(
            {
                "id": code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary or rule.name},
                "fullDescription": {"text": rule.section("Why is this bad?") or rule.summary or rule.name},
                "help": {"text": rule.hint},
                "helpUri": help_uri(code),
                "defaultConfiguration": {"level": level[rule.severity]},
            }
        )
    results = []
    for f, print_ in zip(findings, fingerprint.fingerprints(findings)):
        # A runtime finding says at which optimizer step it was seen: code scanning shows only the message.
        step = f"[optimizer step {f.step}] " if f.step is not None else ""
        result = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": level[f.severity],
            "message": {"text": f"{step}{f.message} Fix: {f.hint}"},
        }
        if f.step is not None:
            result["properties"] = {"step": f.step}
        location: dict = {"physicalLocation": {"artifactLocation": {"uri": _uri(f.file)}}}
        if f.line:
            location["physicalLocation"]["region"] = {"startLine": f.line, "startColumn": f.column or 1}
        result["locations"] = [location]
        result["partialFingerprints"] = {fingerprint.KEY: print_}
        related = [
            {
                "id": i,
                "physicalLocation": {"artifactLocation": {"uri": _uri(r.file)}, "region": {"startLine": r.line}},
                "message": {"text": r.note},
            }
            for i, r in enumerate(f.related)
            if r.line
        ]
        if related:
            result["relatedLocations"] = related
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "graddoctor",
                        "version": __version__,
                        "informationUri": repository(),
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _uri(path: str | None) -> str:
    # A URI reference: `#`, `?`, `%` and spaces in a file name must be escaped, or a reader cuts the path there.
    return quote(Path(path or "").as_posix(), safe="/")
