"""Lint one file's text, or many files (in several processes when there are many)."""

from __future__ import annotations

import ast
import gc
import io
import os
import stat
import tokenize
import warnings
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from graddoctor.finding import Finding
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.checks import checks_for
from graddoctor.lint.noqa import Directives
from graddoctor.lint.reporter import Fix, Reporter
from graddoctor.rules import make

MAX_BYTES = 20 * 1024 * 1024  # a generated 20 MB "source" file is data, not training code
_PARALLEL_MIN_FILES = 16


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    fixes: list[tuple[Finding, Fix]] = field(default_factory=list)
    source: str | None = None  # kept only when fixes are wanted


def decode(data: bytes) -> str:
    """Decode like Python does (BOM, `# -*- coding: ... -*-` cookie, else UTF-8)."""
    if b"\x00" in data[:8192]:
        raise ValueError("it is a binary file, not Python source (it contains NUL bytes)")
    if not data.startswith(b"\xef\xbb\xbf") and b"coding" not in data[:400]:
        try:  # the common case, without tokenize's line-by-line encoding detection
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if "invalid or missing encoding" not in str(exc):
            raise ValueError(f"its encoding declaration is invalid ({exc})") from None
        encoding = "utf-8"  # undecodable bytes in the first lines: say where, below
    try:
        return data.decode("utf-8-sig" if encoding == "utf-8-sig" else encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        where = ""
        if isinstance(exc, UnicodeDecodeError):
            line = data[: exc.start].count(b"\n") + 1
            where = f" at byte {exc.start} (line {line})"
        raise ValueError(f"it is not valid {encoding} text{where}; save it as UTF-8") from None


def lint_source(
    source: str | bytes, filename: str = "<string>", select=None, keep_fixes: bool = False, unused_noqa: bool = False
) -> FileResult:
    """Check one file's text. `select(code) -> bool` limits the rules that run; `unused_noqa` adds a GD001
    finding for each noqa comment that names one of our codes and silenced nothing."""
    result = FileResult(filename)
    if isinstance(source, bytes):
        try:
            source = decode(source)
        except ValueError as exc:
            result.findings.append(make("GD000", f"Cannot read {filename}: {exc}.", file=filename, line=1, column=1))
            return result
    try:
        if _warnings_silenced:
            tree = ast.parse(source, filename=filename)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # invalid escape sequences etc. are not ours to report
                tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        result.findings.append(_syntax_finding(exc, filename, source))
        return result
    except (RecursionError, MemoryError, ValueError) as exc:
        result.findings.append(
            make("GD000", f"Cannot parse {filename}: {type(exc).__name__} ({exc}).", file=filename, line=1, column=1)
        )
        return result
    reporter = Reporter(filename, source)
    try:
        analysis = FileAnalysis(tree, source, filename)
        for check in checks_for(select):
            check(analysis, reporter)
    except RecursionError:
        result.findings.append(
            make("GD000", f"Cannot analyse {filename}: it is nested too deeply.", file=filename, line=1, column=1)
        )
        return result
    directives = Directives.parse(source)
    seen: set[tuple] = set()
    for finding, fix in reporter.results:
        if directives.suppresses(finding.line, finding.code, finding.name):
            continue
        # A loop reached through two paths (a helper called from two loops, nested
        # loops) reports the same finding twice: say it once.
        key = (finding.code, finding.line, finding.column, finding.message)
        if key in seen:
            continue
        seen.add(key)
        result.findings.append(finding)
        if fix is not None:
            result.fixes.append((finding, fix))
    if unused_noqa and (select is None or select("GD001")):
        result.findings += _unused_noqa(directives, filename, select)
    if keep_fixes and result.fixes:
        result.source = source
    return result


def _unused_noqa(directives: Directives, filename: str, select) -> list[Finding]:
    """GD001 for each code or rule name of ours in a noqa comment that silenced nothing that ran."""
    from graddoctor.rules import all_rules

    rules = [r for r in all_rules() if r.code != "GD001"]

    def ours(text: str) -> list[str]:
        wanted = text.upper()
        if wanted.startswith("GD"):
            return [r.code for r in rules if r.code.startswith(wanted)]
        return [r.code for r in rules if r.name == text.lower()]

    out = []
    for item in directives.unused(ours, select or (lambda code: True)):
        out.append(make(
            "GD001",
            f"`# noqa: {item.text}` on line {item.line} silences nothing: no {item.text} finding is reported there.",
            file=filename, line=item.line, column=item.column,
            # No other evidence than the absence itself: the finding is info, and never fails a lint.
            evidence={"noqa": item.text},
        ))
    return out


def _syntax_finding(exc: SyntaxError, filename: str, source: str) -> Finding:
    message = exc.msg
    line = exc.lineno or 1
    text = source.splitlines()[line - 1] if 0 < line <= len(source.splitlines()) else ""
    if "Missing parentheses in call to 'print'" in message or "print " in text.lstrip()[:6]:
        message += " (this looks like Python 2 code)"
    return make(
        "GD000",
        f"Cannot parse {filename}: {message} (line {line}).",
        file=filename,
        line=line,
        column=max(1, exc.offset or 1),
    )


def lint_file(path: str, select=None, keep_fixes: bool = False, unused_noqa: bool = False) -> FileResult:
    """Read and check one file; a file that cannot be read is a GD000 finding."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(0, "it is not a regular file (a pipe, socket or device would block or never end)")
        size = info.st_size
        if size > MAX_BYTES:
            raise OSError(f"it is {size / 1e6:.0f} MB, larger than the {MAX_BYTES // 2**20} MiB limit for source files")
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return FileResult(path, [make("GD000", f"Cannot read {path}: {reason}.", file=path, line=None)])
    return lint_source(data, path, select, keep_fixes, unused_noqa)


_warnings_silenced = False


def prepare_process() -> None:
    """Set up a process that only lints: done by the CLI and its workers, never by `lint_source` alone.

    Compiler warnings (invalid escapes in the user's strings) are not ours to
    print. `gc.freeze()` moves everything imported so far (torch, by way of the
    graddoctor package) out of the collector's sight: the syntax trees lint
    allocates otherwise trigger full collections that walk torch's objects, which
    doubled the per-file cost.
    """
    global _warnings_silenced
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning, module="ast")
    _warnings_silenced = True
    gc.freeze()


def _lint_chunk(args) -> list[FileResult]:
    paths, select_spec, keep_fixes = args
    from graddoctor.lint.selection import Selection

    select = Selection(*select_spec) if select_spec else None
    return [lint_file(p, select, keep_fixes, unused_noqa=True) for p in paths]


def lint_paths(
    files: Iterable[str], selection=None, keep_fixes: bool = False, jobs: int | None = None
) -> list[FileResult]:
    """Check every file; with many files, split them over processes (one per core)."""
    files = list(files)
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    spec = selection.spec() if selection is not None else None
    if jobs <= 1 or len(files) < _PARALLEL_MIN_FILES:
        return _lint_chunk((files, spec, keep_fixes))
    # Interleaved chunks spread big and small files; a few chunks per worker balance the load.
    n = min(len(files), jobs * 4)
    chunks = [(files[i::n], spec, keep_fixes) for i in range(n)]
    import multiprocessing

    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        results = [r for chunk in pool.map(_lint_chunk, chunks) for r in chunk]
    order = {p: i for i, p in enumerate(files)}
    return sorted(results, key=lambda r: order.get(r.path, 0))
