"""The terminal report: read in five seconds, worst first, each finding with its fix.

The only module that imports rich. Objects render themselves through
`__rich_console__`, so a caller may also print a Report into its own Console.
"""

from __future__ import annotations

import io
import os

from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
from rich.text import Text

from graddoctor.finding import Finding, Severity
from graddoctor.report.source import source_line
from graddoctor.report.summary import applies, severity_counts

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "bold cyan"}


class FindingView:
    def __init__(self, finding: Finding):
        self.finding = finding

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        f = self.finding
        name = Text()
        name.append(f"{f.severity}", style=_STYLE[f.severity])
        name.append(f" {f.code} ", style="bold")
        name.append(f.name, style="dim")
        parts: list[tuple[str, str]] = []
        if f.file:
            parts.append((f"{shown_path(f.file)}:{f.line}" + (f":{f.column}" if f.column else ""), "bold blue"))
        if f.rank is not None:
            parts.append((f"(rank {f.rank})", "dim"))
        if f.step is not None:
            parts.append((f"step {f.step}", "dim"))
        if f.source == "static":
            parts.append(("(read in the code)", "dim"))
        place = Text("  ").join(Text(words, style=style) for words, style in parts)
        # The header never wraps inside "step 12" or a path: when name and place do not fit on one
        # line, the place goes on its own line under the name.
        if not parts:
            yield _one_line(name)
        elif name.cell_len + 2 + place.cell_len <= options.max_width:
            yield _one_line(Text.assemble(name, "  ", place))
        else:
            yield _one_line(name)
            yield _one_line(Text.assemble("  ", place))
        source = _source(f.file, f.line)
        if source is not None:
            yield _code(f.line, source, "bold")
        yield _indented(f.message)
        for rel in f.related:
            where = f"{shown_path(rel.file)}:{rel.line}" if rel.file else "(no user line)"
            yield Text.assemble(("  also: ", "dim"), (where, "blue"), ("  ", ""), (rel.note, ""))
            rel_source = _source(rel.file, rel.line)
            if rel_source is not None:
                yield _code(rel.line, rel_source, "")
        if f.subjects and len(f.subjects) > 1:
            shown = ", ".join(f.subjects[:8]) + (f" (+{len(f.subjects) - 8} more)" if len(f.subjects) > 8 else "")
            yield _indented(Text.assemble(("parameters: ", "dim"), (shown, "")))
        if f.hint:
            yield _indented(Text.assemble(("hint: ", "bold green"), (f.hint, "green")))
        if f.edit:
            yield _indented(Text.assemble(("edit: ", "bold green"), (applies(f.edit), "green")))
        yield Text("")


def _one_line(text: Text) -> Text:
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def _code(number: int, source: str, style: str) -> Text:
    """A line of the user's code: never wrapped mid-expression; past the width it ends in an ellipsis."""
    return _one_line(Text.assemble(("  ", ""), (f"{number:>4} │ ", "dim"), (source, style)))


def shown_path(path: str) -> str:
    """Paths under the working directory as relative ones, so a report uses one style throughout."""
    if os.path.isabs(path):
        try:
            relative = os.path.relpath(path)
        except ValueError:  # another drive on Windows
            return path
        if not relative.startswith(".."):
            return relative
    return path


def _indented(text: str | Text) -> Padding:
    return Padding(Text(text) if isinstance(text, str) else text, (0, 0, 0, 2), expand=False)


def _source(file: str | None, line: int | None) -> str | None:
    text = source_line(file, line)
    return text.strip() if text else None


class ReportView:
    def __init__(self, report):
        self.report = report

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        r = self.report
        title = Text("graddoctor", style="bold")
        target = r.target if isinstance(r.target, str) else " ".join(r.target or [])
        if target:
            title.append(f" {r.command} {target}", style="dim")
        yield title
        yield Text("")
        if r.exception:
            exc = r.exception
            where = f" at {exc['file']}:{exc['line']}" if exc.get("file") else ""
            yield Text.assemble(("The script raised ", ""), (f"{exc['type']}: {exc['message']}", "bold red"), (where, "blue"))
            yield Text("")
        for finding in r.findings:
            yield FindingView(finding)
        for note in r.notes:
            yield Text(note, style="dim")
        yield _summary(r)


def _summary(r) -> Text:
    parts = [(words, _STYLE[sev]) for sev, words in severity_counts(r.findings)]
    text = Text()
    if not parts:
        text.append("No problems found", style="bold green")
    for i, (part, style) in enumerate(parts):
        if i:
            text.append(", ")
        text.append(part, style=style)
    steps = r.steps_text()
    if steps is not None:
        text.append(f" · {steps} observed", style="dim")
    if r.status:
        ended = f"exited with code {r.exit_status}" if r.status == "completed" and r.exit_status else r.status
        text.append(f" · {r.ran} {ended}", style="dim")
    return text


def render_text(report, width: int = 100, color: bool = False) -> str:
    """The report as plain text (or with ANSI colour), at a fixed width."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system="standard" if color else None, force_terminal=color, highlight=False, soft_wrap=False)
    console.print(ReportView(report))
    # Padding fills lines to the full width; trailing blanks are noise in files and diffs.
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def print_report(report, file=None) -> None:
    """Print to a terminal in colour (unless NO_COLOR is set); to a pipe or file as plain text."""
    import sys

    file = file or sys.stdout
    console = Console(file=file, highlight=False)
    # Written as text in both cases: rich's own printing pads every line to the width, which
    # notebooks and terminals that log output keep as trailing blanks.
    file.write(render_text(report, width=console.width, color=console.is_terminal and not console.no_color))
