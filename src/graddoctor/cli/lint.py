"""`graddoctor lint [OPTIONS] PATH...`: options, configuration, output and exit code."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from graddoctor.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from graddoctor.finding import FAIL_ON
from graddoctor.cli.parser import Parser
from graddoctor.finding import sort_findings
from graddoctor.lint import config as config_mod
from graddoctor.lint.engine import lint_paths, prepare_process
from graddoctor.lint.files import PathError, collect
from graddoctor.lint.selection import Selection

FORMATS = ("text", "json", "sarif", "github")


_CODE = re.compile(r"^(GD\d{0,3}|ALL)$")


def _codes(text: str) -> list[str]:
    codes = [c.strip().upper() for c in text.split(",") if c.strip()]
    for code in codes:
        if not _CODE.match(code):
            raise argparse.ArgumentTypeError(f"{code!r} is not a code or prefix like GD101, GD2 or ALL")
    return codes


def _parser() -> Parser:
    p = Parser(prog="graddoctor lint", description="Check PyTorch training code statically, without running it.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files and folders to check (folders are searched for .py files)")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--select", type=_codes, action="extend", metavar="CODES", help="only these codes or prefixes, e.g. GD2,GD101")
    p.add_argument("--ignore", type=_codes, action="extend", metavar="CODES", help="skip these codes or prefixes")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip files and folders matching GLOB (repeatable)")
    p.add_argument("--no-gitignore", action="store_true", help="also check files that .gitignore excludes")
    p.add_argument("--fix", action="store_true", help="apply the safe, behaviour-preserving rewrites")
    p.add_argument("--diff", action="store_true", help="with --fix (or alone): print the rewrites as a diff and change nothing")
    p.add_argument("--fail-on", choices=FAIL_ON, default=None, help="lowest severity that makes the exit code 1 (default: warning)")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="processes to use (default: one per core)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    p.add_argument("--config", metavar="PYPROJECT", help="read [tool.graddoctor] from this file")
    p.add_argument("--isolated", action="store_true", help="ignore pyproject.toml configuration")
    p.add_argument("--quiet", "-q", action="store_true", help="text format: print only the summary line")
    p.add_argument("--add-noqa", action="store_true", help="add `# noqa: CODE` to the line of each finding (keeping its comments) and report nothing")
    p.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE; when FILE does not exist, record today's findings there")
    return p


def lint_command(argv: list[str]) -> int:
    parser = _parser()
    opts = parser.parse_intermixed_args(argv)
    if not opts.paths:
        parser.error("give at least one PATH to check")
    try:
        cfg = _load_config(opts)
        for code in cfg.select + cfg.ignore:
            if not _CODE.match(code.upper()):
                raise config_mod.ConfigError(f"{cfg.path}: {code!r} is not a code or prefix like GD101, GD2 or ALL")
    except config_mod.ConfigError as exc:
        print(f"graddoctor lint: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    selection = Selection(tuple(opts.select or cfg.select or ("GD",)), tuple(cfg.ignore) + tuple(opts.ignore or ()))
    excludes = tuple(cfg.exclude) + tuple(opts.exclude)
    try:
        files = collect(opts.paths, excludes, respect_gitignore=not opts.no_gitignore)
    except PathError as exc:
        print(f"graddoctor lint: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    fixing = opts.fix or opts.diff
    if fixing:
        from graddoctor.fix import FixUnavailable, require_libcst

        try:
            require_libcst()
        except FixUnavailable as exc:
            print(f"graddoctor lint: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    prepare_process()
    results = lint_paths(files, selection, keep_fixes=fixing, jobs=opts.jobs)
    findings = [f for r in results for f in r.findings if selection(f.code)]
    if cfg.per_file_ignores:
        from graddoctor.lint.ignores import PerFileIgnores

        ignores = PerFileIgnores(cfg.per_file_ignores, cfg.path.parent if cfg.path else None)
        findings = [f for f in findings if not ignores.ignored(f)]
    if opts.add_noqa:
        return _add_noqa(findings)
    if opts.baseline:
        findings, code = _baseline(Path(opts.baseline), sort_findings(findings))
        if code is not None:
            return code
    if fixing:
        findings = _fix(results, findings, write=opts.fix and not opts.diff, select=selection)
    findings = sort_findings(findings)
    if fixing and opts.format == "json" and findings:
        # Planning edits parses every file with findings again: only when edits are asked for.
        findings = _attach_edits(findings, files)
    fail_on = opts.fail_on or cfg.fail_on or "warning"
    rendered = _render(opts.format, findings, files, opts)
    if opts.output:
        Path(opts.output).write_text(rendered, encoding="utf-8")
    elif rendered:
        sys.stdout.write(rendered)
    from graddoctor.report.report import Report

    return EXIT_FINDINGS if Report(command="lint", findings=findings).fails(fail_on) else EXIT_OK


def _add_noqa(findings) -> int:
    from graddoctor.lint.add_noqa import add_noqa

    added, refused = add_noqa(findings)
    for where in refused:
        print(f"graddoctor lint: {where}: no room for a comment (inside a multi-line string or a `\\` line); left as is",
              file=sys.stderr)
    print(f"Added {added} noqa comment{'s' if added != 1 else ''}.", file=sys.stderr)
    return EXIT_OK


def _baseline(path: Path, findings) -> tuple[list, int | None]:
    """The findings the baseline does not hold; on the first run, record them all (exit 0)."""
    from graddoctor.lint import baseline

    if not path.exists():
        baseline.write(path, findings)
        print(f"graddoctor lint: recorded {len(findings)} finding{'s' if len(findings) != 1 else ''} in {path}; "
              "later runs with --baseline report only new ones", file=sys.stderr)
        return findings, EXIT_OK
    try:
        return baseline.new_findings(path, findings), None
    except baseline.BaselineError as exc:
        print(f"graddoctor lint: error: {exc}", file=sys.stderr)
        return findings, EXIT_USAGE


def _load_config(opts) -> config_mod.Config:
    if opts.isolated:
        return config_mod.Config()
    if opts.config:
        path = Path(opts.config)
        if not path.is_file():
            raise config_mod.ConfigError(f"{opts.config}: no such file")
        return config_mod.load(path)
    first = Path(opts.paths[0])
    return config_mod.load(first if first.exists() else Path.cwd())


def _fix(results, findings, write: bool, select=None):
    """Apply (or show) fixes; findings that were fixed are no longer reported. A file is written only when
    its rewrite is proven (`rewrites.unproven`); otherwise one line says why and it is left as it was."""
    from graddoctor.lint import rewrites

    fixed_ids: set[int] = set()
    for result in results:
        if not result.fixes or result.source is None:
            continue
        after = rewrites.apply(result.source, [fx for _, fx in result.fixes])
        if after == result.source:
            continue
        if write:
            applied = {id(fx) for fx in rewrites.chosen([fx for _, fx in result.fixes])}
            fixed = [f for f, fx in result.fixes if id(fx) in applied]
            why = rewrites.unproven(result.path, result.findings, fixed, after, select)
            if why is not None:
                print(f"graddoctor lint: {result.path}: not fixed: {why}", file=sys.stderr)
                continue
            Path(result.path).write_text(after, encoding="utf-8")
            fixed_ids.update(id(f) for f in fixed)
            print(f"fixed {len(fixed)} problem(s) in {result.path}", file=sys.stderr)
        else:
            sys.stdout.write(rewrites.diff(result.path, result.source, after))
    return [f for f in findings if id(f) not in fixed_ids]


def _attach_edits(findings, files: list[str]) -> list:
    """With --fix/--diff, JSON findings carry the edit `graddoctor fix` would make, where one is known."""
    import os

    from graddoctor.fix.attach import attach_known

    root = os.path.commonpath([os.path.dirname(os.path.realpath(f)) for f in files]) if files else os.getcwd()
    return attach_known(findings, root)


def _render(fmt: str, findings, files: list[str], opts) -> str:
    if fmt == "json":
        from graddoctor.report.report import Report

        return Report(command="lint", target=list(opts.paths), findings=findings).to_json() + "\n"
    if fmt == "sarif":
        from graddoctor.report.sarif import sarif

        return sarif(findings)
    if fmt == "github":
        from graddoctor.report.github import github

        return github(findings)
    from graddoctor.report.lint_text import summary, text

    if opts.quiet:
        return summary(findings, len(files)) + "\n"
    return text(findings, len(files))
