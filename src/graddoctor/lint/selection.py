"""`--select` / `--ignore`: codes or prefixes (`GD2`, `GD201`); the longest match wins, as in ruff."""

from __future__ import annotations


class Selection:
    def __init__(self, select: tuple[str, ...] = ("GD",), ignore: tuple[str, ...] = ()):
        self.select = tuple(s.upper() for s in select) or ("GD",)
        self.ignore = tuple(s.upper() for s in ignore)

    def __call__(self, code: str) -> bool:
        code = code.upper()
        chosen = max((len(s) for s in self.select if code.startswith(s) or s == "ALL"), default=-1)
        dropped = max((len(s) for s in self.ignore if code.startswith(s) or s == "ALL"), default=-1)
        if code == "GD000" and dropped < 0:
            return True  # an unreadable file is always said, unless asked not to
        return chosen >= 0 and chosen > dropped

    def spec(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (self.select, self.ignore)
