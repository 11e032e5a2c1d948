"""`per-file-ignores` of `[tool.graddoctor]`: codes, prefixes or rule names not reported in some files.

The globs are read as ruff reads them: relative to the folder of the pyproject.toml that holds
them; a glob without `/` also matches a file's name in any folder.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from graddoctor.finding import Finding
from graddoctor.lint.noqa import names


class PerFileIgnores:
    def __init__(self, entries: tuple[tuple[str, tuple[str, ...]], ...] = (), root: Path | None = None):
        self.entries = entries
        self.root = (root or Path.cwd()).resolve()

    def __bool__(self) -> bool:
        return bool(self.entries)

    def ignored(self, finding: Finding) -> bool:
        if not self.entries or not finding.file:
            return False
        absolute = Path(os.path.abspath(finding.file))
        try:
            relative = absolute.relative_to(self.root).as_posix()
        except ValueError:
            relative = absolute.as_posix()
        for glob, items in self.entries:
            pattern = glob.rstrip("/")
            hit = fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative, f"{pattern}/*")
            if "/" not in pattern:
                hit = hit or fnmatch.fnmatch(absolute.name, pattern)
            if hit and any(names(item, finding.code, finding.name) for item in items):
                return True
        return False
