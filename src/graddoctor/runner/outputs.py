"""The outputs of `graddoctor run`: the terminal report first, then each file on its own.

A renderer that fails costs only its own output: the failure is one line on stderr
(an internal error, with where to report it) and the other outputs are still made.
Each file is written to a temporary file beside it and renamed over it, so that a
reader never sees half a report and a failed write leaves the previous file intact.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable

from graddoctor.exits import ISSUES_URL
from graddoctor.report.report import Report


def print_terminal(report: Report) -> bool:
    """Print the report on stdout; False (and one line on stderr) when it could not be rendered."""
    from graddoctor.report.terminal import print_report

    try:
        print()
        print_report(report)
        sys.stdout.flush()
    except Exception as exc:
        _renderer_failed("terminal report", exc)
        return False
    return True


def print_formatted(report: Report, fmt: str, path: str | None) -> tuple[bool, bool]:
    """`--format json|sarif`: the report on stdout, or in `path`; returns (rendered, written)."""
    try:
        if fmt == "sarif":
            from graddoctor.report.sarif import sarif

            text = sarif(report.findings)
        else:
            text = report.to_json() + "\n"
    except Exception as exc:
        _renderer_failed(f"{fmt} report", exc)
        return False, True
    if path is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return True, True
    try:
        write_atomically(path, text)
    except OSError as exc:
        print(f"graddoctor run: error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return True, False
    return True, True


def write_files(report: Report, json_path: str | None, html_path: str | None) -> tuple[bool, bool]:
    """Write --json and --html; returns (every renderer worked, every file could be written)."""
    rendered_ok = written_ok = True
    outputs: list[tuple[str | None, str, Callable[[], str]]] = [
        (json_path, "JSON report", lambda: report.to_json() + "\n"),
        (html_path, "HTML report", report.to_html),
    ]
    for path, what, render in outputs:
        if not path:
            continue
        try:
            text = render()
        except Exception as exc:
            _renderer_failed(f"{what} {path}", exc)
            rendered_ok = False
            continue
        try:
            write_atomically(path, text)
        except OSError as exc:
            print(f"graddoctor run: error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
            written_ok = False
    return rendered_ok, written_ok


def write_atomically(path: str, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and a rename."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temp, 0o666 & ~_umask())  # mkstemp makes it private; a report is an ordinary file
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _renderer_failed(what: str, exc: Exception) -> None:
    print(
        f"graddoctor: internal error: the {what} could not be made ({type(exc).__name__}: {exc}); "
        f"this is a bug in graddoctor, please report it at {ISSUES_URL}. The other outputs were written.",
        file=sys.stderr,
    )
