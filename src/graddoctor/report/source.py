"""The one source-line reader every renderer uses (terminal, HTML, lint text).

Files are decoded as Python decodes them (a PEP 263 coding line is honoured, UTF-8
otherwise, undecodable bytes replaced) and split as `str.splitlines` splits them, so
that line N here is line N in the finding. Code with no file on disk (a notebook
cell, shown as `Cell In[3]`) is read from `linecache`, where IPython keeps the
text of each cell. A file that cannot be read shows no line.
"""

from __future__ import annotations

import io
import linecache
import os
import tokenize

from graddoctor.locate import named_file


class SourceLines:
    """Lines of source files, read once each; `sources` pre-fills paths with known lines."""

    def __init__(self, sources: dict[str, list[str]] | None = None) -> None:
        self._cache: dict[str, list[str]] = dict(sources or {})

    def line(self, path: str | None, number: int | None) -> str | None:
        """Line `number` (1-based) of `path`, without its end of line; None when there is none."""
        if not path or not number:
            return None
        if path not in self._cache:
            self._cache[path] = (None if path.startswith("<") else _read(path)) or _kept_in_memory(path)
        lines = self._cache[path]
        return lines[number - 1] if 0 < number <= len(lines) else None


def _kept_in_memory(path: str) -> list[str]:
    """The lines `linecache` holds for code that was never a file: IPython's cells (under the
    name a namer showed for them, or their own), `%%graddoctor` cells, `<stdin>`-like names."""
    for name in (path, named_file(path)):
        entry = linecache.cache.get(name) if name else None
        if entry is not None and entry[2]:
            return "".join(entry[2]).splitlines()
    return []


def _read(path: str) -> list[str]:
    try:
        with open(path if os.path.isabs(path) else os.path.abspath(path), "rb") as handle:
            data = handle.read()
    except OSError:
        return []
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown coding name: read it as UTF-8, as lint does
        encoding = "utf-8"
    if encoding == "utf-8-sig":
        encoding = "utf-8"  # keep the BOM as a character, as Path.read_text does
    try:
        return data.decode(encoding, errors="replace").splitlines()
    except LookupError:
        return data.decode("utf-8", errors="replace").splitlines()


def source_line(path: str | None, number: int | None) -> str | None:
    """One line of one file, read fresh (for renderers that show a line or two)."""
    return SourceLines().line(path, number)
