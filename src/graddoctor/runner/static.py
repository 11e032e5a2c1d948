"""`run` never says less than `lint`: the static findings on the user files the run executed.

A bug that the source shows (a `.item()` re-wrapped into a loss, a clip after the
step) is reported by `lint` before anything runs. The run may miss it (the line
never ran, or it ran inside code graddoctor could not see) or see only its
consequence further down (GD104 at `backward()`). So after the script ends, the
files it executed are read by the same checks `lint` uses, with the project's
`[tool.graddoctor]` selection and `# noqa` comments, and every finding the run
does not already carry at the same place is added, marked `"source": "static"`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from graddoctor.finding import Finding
from graddoctor.locate import display_path, is_user_file


def loaded_modules() -> set[str]:
    """The names in `sys.modules` now: what the run imports is what comes after."""
    return set(sys.modules)


def executed_files(script: str | None, before: set[str]) -> list[str]:
    """The script and the user's own modules that the run imported."""
    files: list[str] = []
    if script:
        files.append(os.path.abspath(script))
    for name, module in list(sys.modules.items()):
        if name in before:
            continue
        path = getattr(module, "__file__", None)
        if path and path.endswith(".py") and is_user_file(path) and os.path.abspath(path) not in files:
            files.append(os.path.abspath(path))
    return files


def static_findings(files: list[str]) -> list[Finding]:
    """What `graddoctor lint` says about `files`, with the project's configuration."""
    if not files:
        return []
    from graddoctor.lint import config as config_mod
    from graddoctor.lint.engine import lint_file
    from graddoctor.lint.files import collect
    from graddoctor.lint.selection import Selection

    try:
        cfg = config_mod.load(Path(files[0]))
        kept = set(collect(files, tuple(cfg.exclude)))
    except Exception:  # an unreadable configuration is lint's to report, not the run's
        return []
    selection = Selection(tuple(cfg.select or ("GD",)), tuple(cfg.ignore))
    found: list[Finding] = []
    for path in files:
        if path not in kept:
            continue
        shown = display_path(path) or path
        result = lint_file(path, selection)
        for finding in result.findings:
            # A file the run executed parses; GD000 would only repeat what the run reported.
            if finding.code != "GD000" and selection(finding.code):
                found.append(finding.with_(file=shown))
    return found


def merge_static(runtime: list[Finding], static: list[Finding]) -> list[Finding]:
    """`static` findings the run does not already report at the same place, marked as such."""
    seen = {(f.code, f.file, f.line) for f in runtime}
    added: list[Finding] = []
    for finding in static:
        key = (finding.code, finding.file, finding.line)
        if key in seen:
            continue
        seen.add(key)
        added.append(finding.with_(source="static"))
    return added
