"""`run` never says less than `lint`: the static findings on the user files the run executed.

A bug that the source shows (a `.item()` re-wrapped into a loss, a clip after the
step) is reported by `lint` before anything runs. The run may miss it (the line
never ran, or it ran inside code graddoctor could not see) or see only its
consequence further down (GD104 at `backward()`). So after the script ends, the
files it executed are read by the same checks `lint` uses, with the project's
`[tool.graddoctor]` selection and `# noqa` comments, and every finding the run
does not already carry at the same place is added, marked `"source": "static"`. A cause
both see (a softmax layer feeding a logits loss, GD501) is one finding, at the static line.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from graddoctor.finding import Finding, Related
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


def static_findings(files: list[str], texts: dict[str, str] | None = None) -> list[Finding]:
    """What `graddoctor lint` says about `files`, and about `texts` (shown name -> source: a
    notebook cell, which is no file), with the project's configuration."""
    texts = texts or {}
    if not files and not texts:
        return []
    from graddoctor.lint import config as config_mod
    from graddoctor.lint.engine import lint_file, lint_source
    from graddoctor.lint.files import PathError, collect
    from graddoctor.lint.ignores import PerFileIgnores
    from graddoctor.lint.selection import Selection

    try:
        cfg = config_mod.load(Path(files[0]) if files else Path.cwd())
        kept = set(collect(files, tuple(cfg.exclude))) if files else set()
    except (config_mod.ConfigError, PathError, OSError):  # an unreadable configuration or folder is lint's
        return []  # to report, not the run's
    selection = Selection(tuple(cfg.select or ("GD",)), tuple(cfg.ignore))
    results = [(display_path(path) or path, lint_file(path, selection)) for path in files if path in kept]
    results += [(shown, lint_source(text, shown, selection)) for shown, text in texts.items()]
    ignores = PerFileIgnores(cfg.per_file_ignores, cfg.path.parent if cfg.path else None)
    found: list[Finding] = []
    for shown, result in results:
        for finding in result.findings:
            # Code the run executed parses; GD000 would only repeat what the run reported.
            if finding.code != "GD000" and selection(finding.code) and not ignores.ignored(finding):
                found.append(finding.with_(file=shown))
    return found


def _one_per_cause() -> frozenset[str]:
    """Codes whose static and runtime findings are one cause (`Rule.one_with_static`)."""
    from graddoctor.rules import all_rules

    return frozenset(rule.code for rule in all_rules() if rule.one_with_static)


def merge_static(runtime: list[Finding], static: list[Finding], observers: list = ()) -> list[Finding]:
    """The run's findings with `static` merged in: each static finding the run does not already report at the
    same place is added, marked as such; a runtime finding of a code with `Rule.one_with_static` about the same loss line as a
    static one moves to the static line (the layer), its own line kept as a related one, and the static one goes.

    A static finding that an observer's measurement contradicts (`static_contradicted`: the run saw
    the model in eval mode at the line lint called an evaluation in training mode) is dropped."""
    static = list(static)
    merged: list[Finding] = []
    one_per_cause = _one_per_cause() if static else frozenset()
    for finding in runtime:
        twin = _static_twin(finding, static) if finding.code in one_per_cause else None
        if twin is None:
            merged.append(finding)
            continue
        static.remove(twin)
        here = [Related(finding.file, finding.line, "the values reach the loss from here")] if finding.line else []
        related = here + [r for r in twin.related if _place(r) not in {_place(x) for x in finding.related}]
        merged.append(finding.with_(file=twin.file, line=twin.line, column=twin.column,
                                    related=related + list(finding.related)))
    seen = {(f.code, f.file, f.line) for f in merged}
    judges = [o.static_contradicted for o in observers if hasattr(o, "static_contradicted")]
    for finding in static:
        key = (finding.code, finding.file, finding.line)
        if key in seen or any(judge(finding) for judge in judges):
            continue
        seen.add(key)
        merged.append(finding.with_(source="static"))
    return merged


def _static_twin(finding: Finding, static: list[Finding]) -> Finding | None:
    """The one static finding of the same code that names the same loss line as `finding` (None: none, or several)."""
    lines = {_place(r) for r in finding.related}
    twins = [s for s in static if s.code == finding.code and lines & {_place(r) for r in s.related}]
    return twins[0] if len(twins) == 1 else None


def _place(r: Related) -> tuple:
    return (os.path.realpath(r.file) if r.file else None, r.line)
