"""From findings to edits: which files may be edited, each finding's own diff, and every edit of a
file applied together (later edits see the lines as the earlier ones left them)."""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import os
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from graddoctor.finding import Finding, Severity

_PACKAGE_DIR = os.path.realpath(Path(__file__).parent.parent)  # graddoctor's own files are never edited


@dataclass
class PlannedFix:
    finding: Finding
    path: str  # absolute path of the edited file
    title: str
    diff: str  # this edit alone, against the file as it was run


@dataclass
class FileEdit:
    path: str
    shown: str  # the path as findings show it
    before: str
    after: str
    digest: str  # sha256 of the bytes read here: --write refuses a file changed since
    stale: bool = False  # modified while the program ran: its lines may not be the ones the findings name
    fixes: list[PlannedFix] = field(default_factory=list)

    def line_map(self) -> dict[int, int]:
        return line_map(self.before, self.after)


@dataclass
class Plan:
    fixes: list[PlannedFix] = field(default_factory=list)
    files: dict[str, FileEdit] = field(default_factory=dict)

    def fix_for(self, finding: Finding) -> PlannedFix | None:
        return next((p for p in self.fixes if p.finding is finding), None)


def plan(findings: list[Finding], root: str, since: float | None = None) -> Plan:
    """The edits for `findings` in the user's files under `root` (the script's folder).

    `since`: when the run started (time.time()); a file modified after it is marked stale.
    """
    from graddoctor.editing.edits import registry

    edits = registry()
    out = Plan()
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        if f.severity < Severity.WARNING:
            continue  # weak evidence: a hint to look, never a reason to change the user's code
        path = editable_path(f.file, root) if f.code in edits else None
        if path is not None:
            by_path.setdefault(path, []).append(f)
    for path, found in by_path.items():
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            original = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        file_edit = FileEdit(path, found[0].file, original, original, hashlib.sha256(data).hexdigest())
        file_edit.stale = since is not None and os.stat(path).st_mtime > since
        parsed: dict[str, object] = {}  # text -> its Source: one parse (and metadata) per text, not per finding
        starts = _line_starts(original)
        merged: dict = {}  # the replacements of every edit made on the original tree, applied in one rewrite
        # ids of the nodes those edits replace, and of those nodes with their ancestors: a later edit
        # may join them on the same tree when it replaces none of either, and none of its own nodes'
        # ancestors is replaced (two repeats on one line; edits in one function)
        replaced: set[int] = set()
        claimed: set[int] = set()
        imports: list[str] = []
        later: list[tuple[Finding, str]] = []  # edits that touch the same nodes as an earlier one
        for f in sorted(found, key=lambda x: (x.line or 0, x.code)):
            single = _change(edits[f.code], f, original, parsed)
            if single is None:
                continue
            src, change, alone = single
            keys = list(change.replacements)
            above = {id(a) for k in keys for a in src.ancestors(k)}
            fix = PlannedFix(f, path, change.title, _diff_of_change(f.file, original, alone, src, change, starts))
            if any(id(k) in claimed for k in keys) or above & replaced:
                later.append((f, fix))
                continue
            replaced |= {id(k) for k in keys}
            claimed |= replaced | above
            merged.update(change.replacements)
            imports += [line for line in change.imports if line not in imports]
            file_edit.fixes.append(fix)
        if merged or imports:
            from graddoctor.editing.source import Change, apply_change

            file_edit.after = apply_change(parsed[original], Change("", merged, imports))
        for f, fix in later:  # on the text the others left: a second parse, for these alone
            moved = shifted(f, line_map(original, file_edit.after))
            together = _change(edits[f.code], moved, file_edit.after, parsed) if moved else None
            if together is None:
                continue  # clashes with an earlier edit of the same lines: left for a second run
            file_edit.after = together[2]
            file_edit.fixes.append(fix)
        file_edit.fixes.sort(key=lambda x: (x.finding.line or 0, x.finding.code))
        out.fixes.extend(file_edit.fixes)
        if file_edit.fixes:
            out.files[path] = file_edit
    return out


def _change(module, finding: Finding, text: str, parsed: dict):
    """(the Source of `text`, the Change, the new text) of one edit of `text`, or None when there is none.
    `parsed` keeps each text's Source (edits never change the tree they read: a rewrite builds a new one)."""
    import libcst as cst

    from graddoctor.editing.source import Source, apply_change

    try:
        src = parsed.get(text)
        if src is None:
            src = parsed[text] = Source(text)
        change = module.edit(finding, src)
        if change is None:
            return None
        after = apply_change(src, change)
        return None if after == text else (src, change, after)
    except (cst.ParserSyntaxError, ValueError, RecursionError):
        return None  # code libcst cannot read: no edit rather than a wrong one


def editable_path(shown: str | None, root: str) -> str | None:
    """The absolute path of a finding's file when it is the user's own file under `root`."""
    if not shown or shown.startswith("<"):
        return None
    path = os.path.realpath(os.path.abspath(shown))
    root = os.path.realpath(root)
    if not path.startswith(root + os.sep) or not path.endswith(".py") or not os.path.isfile(path):
        return None
    libraries = {os.path.realpath(p) for key in ("purelib", "platlib", "stdlib") if (p := sysconfig.get_paths().get(key))}
    libraries.add(_PACKAGE_DIR)
    if any(path.startswith(lib + os.sep) for lib in libraries):
        return None
    parts = path[len(root):].split(os.sep)
    if any(p in ("site-packages", "dist-packages", ".venv", "venv", "node_modules") for p in parts):
        return None
    return path


def _line_starts(text: str) -> list[int]:
    """The character offset where each line of `text` starts (the last entry: the text's end)."""
    starts = [0]
    at = text.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


_CONTEXT = 3  # difflib's default context lines


def _diff_of_change(shown: str, before: str, after: str, src, change, starts: list[int]) -> str:
    """`unified_diff(shown, before, after)` for an edit that only touches the lines of its replaced nodes,
    computed on those lines and their context alone: one finding's diff no longer costs a pass over
    the whole file (hundreds of findings on a 30,000-line file took minutes)."""
    try:
        spans = [src.lines_of(node) for node in change.replacements]
    except KeyError:
        spans = []
    if change.imports or not spans:
        return unified_diff(shown, before, after)
    lines = len(starts) - 1
    for margin in (2 * _CONTEXT, 8 * _CONTEXT, 40 * _CONTEXT):
        # a node's position leaves out what the edit may also touch (its decorators, comments above it)
        first = max(1, min(a for a, _ in spans) - margin)
        last = min(lines, max(b for _, b in spans) + margin)
        head, tail = starts[first - 1], len(before) - starts[last]
        # The text outside the region is the same before and after (a local rewrite), and so are the
        # context lines at its edges (the hunks lie inside it): else a wider region, at last the whole file.
        if len(after) < head + tail or after[:head] != before[:head] or after[len(after) - tail:] != before[len(before) - tail:]:
            continue
        old, new = before[head:len(before) - tail], after[head:len(after) - tail]
        old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
        edges = _CONTEXT if first > 1 else 0, _CONTEXT if last < lines else 0
        if old_lines[:edges[0]] != new_lines[:edges[0]] or old_lines[len(old_lines) - edges[1]:] != new_lines[len(new_lines) - edges[1]:]:
            continue
        return _shift_hunks(unified_diff(shown, old, new), first - 1)
    return unified_diff(shown, before, after)


def _shift_hunks(diff: str, offset: int) -> str:
    """A unified diff of a region starting after `offset` lines, numbered as lines of the whole file."""
    if not offset:
        return diff
    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@ "):
            old, new = line.split(" ")[1:3]
            line = f"@@ {_shift_range(old, offset)} {_shift_range(new, offset)} @@\n"
        out.append(line)
    return "".join(out)


def _shift_range(text: str, offset: int) -> str:
    sign, _, rest = text[0], None, text[1:]
    start, comma, length = rest.partition(",")
    return f"{sign}{int(start) + offset}{comma}{length}"


def unified_diff(shown: str, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        shown, shown))


def line_map(before: str, after: str) -> dict[int, int]:
    """1-based line numbers of `before` that survive unchanged, to their numbers in `after`."""
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    out: dict[int, int] = {}
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                out[i1 + k + 1] = j1 + k + 1
    return out


def shifted(finding: Finding, mapping: dict[int, int]) -> Finding | None:
    """The finding with its lines as they are after earlier edits; None when its own line was edited."""
    if finding.line is None or finding.line not in mapping:
        return None
    related = [dataclasses.replace(r, line=mapping.get(r.line)) if r.file == finding.file else r for r in finding.related]
    return dataclasses.replace(finding, line=mapping[finding.line], related=related)
