"""Which files to lint: recurse into folders, skip what .gitignore and --exclude leave out.

Symlinked folders are not followed (no loops); a broken or looping symlink to a
file is linted, which reports it as unreadable (GD000) rather than dropping it.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
    ".pytest_cache", "node_modules", "build", "dist", ".eggs", "site-packages", "__pypackages__",
)


class PathError(Exception):
    """A path named on the command line that does not exist or cannot be read (exit code 2)."""


@dataclass
class _Pattern:
    regex: re.Pattern
    negate: bool
    dir_only: bool


def _compile(line: str) -> _Pattern | None:
    line = line.rstrip("\n").rstrip()
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    anchored = "/" in line
    line = line.lstrip("/")
    parts = []
    i = 0
    while i < len(line):
        if line.startswith("**/", i):
            parts.append("(?:.*/)?")
            i += 3
        elif line.startswith("/**", i) and i + 3 == len(line):
            parts.append("/.*")
            i += 3
        elif line.startswith("**", i):
            parts.append(".*")
            i += 2
        elif line[i] == "*":
            parts.append("[^/]*")
            i += 1
        elif line[i] == "?":
            parts.append("[^/]")
            i += 1
        else:
            parts.append(re.escape(line[i]))
            i += 1
    body = "".join(parts)
    regex = re.compile(("^" if anchored else "^(?:.*/)?") + body + "$")
    return _Pattern(regex, negate, dir_only)


@dataclass
class IgnoreRules:
    """The .gitignore patterns of one folder, matched against paths relative to it."""

    base: Path
    patterns: list[_Pattern] = field(default_factory=list)

    @classmethod
    def read(cls, folder: Path) -> "IgnoreRules | None":
        path = folder / ".gitignore"
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        patterns = [p for p in map(_compile, text.splitlines()) if p]
        return cls(folder, patterns) if patterns else None

    def decide(self, path: Path, is_dir: bool) -> bool | None:
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            return None
        verdict = None
        for p in self.patterns:
            if p.dir_only and not is_dir:
                continue
            if p.regex.match(rel):
                verdict = not p.negate
        return verdict


def _ignored(path: Path, is_dir: bool, rules: list[IgnoreRules]) -> bool:
    verdict = False
    for r in rules:  # outermost first; a deeper .gitignore overrides
        d = r.decide(path, is_dir)
        if d is not None:
            verdict = d
    return verdict


def _excluded(path: Path, excludes: tuple[str, ...]) -> bool:
    text = path.as_posix()
    name = path.name
    for pattern in excludes:
        pat = pattern.rstrip("/")
        if fnmatch.fnmatch(name, pat) or fnmatch.fnmatch(text, pat) or fnmatch.fnmatch(text, f"*/{pat}") or fnmatch.fnmatch(text, f"*/{pat}/*"):
            return True
    return False


def _ancestor_rules(folder: Path) -> list[IgnoreRules]:
    """.gitignore files above the linted folder, up to the repository root."""
    rules = []
    cur = Path(os.path.abspath(folder))
    for parent in [cur, *cur.parents]:
        r = IgnoreRules.read(parent)
        if r:
            rules.append(r)
        if (parent / ".git").exists():
            break
    return list(reversed(rules))


def collect(paths: list[str], excludes: tuple[str, ...] = (), respect_gitignore: bool = True) -> list[str]:
    """The .py files to lint, in a stable order. Raises PathError for a missing or unreadable path."""
    out: list[str] = []
    seen: set[str] = set()
    for given in paths:
        path = Path(given)
        if not os.path.lexists(path):
            raise PathError(f"{given}: no such file or directory")
        if path.is_dir():
            if not os.access(path, os.R_OK | os.X_OK):
                raise PathError(f"{given}: permission denied")
            for f in _walk(path, excludes, respect_gitignore):
                if f not in seen:
                    seen.add(f)
                    out.append(f)
        else:
            if path.is_file() and not os.access(path, os.R_OK):
                raise PathError(f"{given}: permission denied")
            if _excluded(path, excludes):
                continue
            if given not in seen:
                seen.add(given)
                out.append(given)
    return out


def _walk(root: Path, excludes: tuple[str, ...], respect_gitignore: bool) -> list[str]:
    found: list[str] = []
    base_rules = _ancestor_rules(root) if respect_gitignore else []

    def visit(folder: Path, rules: list[IgnoreRules]) -> None:
        if respect_gitignore and folder != root:
            own = IgnoreRules.read(Path(os.path.abspath(folder)))
            if own:
                rules = rules + [own]
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return  # an unreadable sub-folder: nothing in it can be listed
        for entry in entries:
            path = Path(os.path.normpath(entry.path))
            absolute = Path(os.path.abspath(entry.path))
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                if entry.name in DEFAULT_EXCLUDES or _excluded(path, excludes) or _ignored(absolute, True, rules):
                    continue
                visit(path, rules)
            elif entry.name.endswith((".py", ".pyi")):
                if entry.is_symlink() and _is_dir_link(path):
                    continue
                if _excluded(path, excludes) or _ignored(absolute, False, rules):
                    continue
                found.append(str(path))

    visit(root, base_rules)
    return found


def _is_dir_link(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False
