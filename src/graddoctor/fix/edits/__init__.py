"""The edits, one module per code (`gdNNN_*.py`), found by discovery.

Each module holds `CODE` and `edit(finding, source) -> Change | None`: the change of the
finding's own file that removes the finding, written in the user's names, or None when
the code around the finding's line does not have the shape the edit knows.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from types import ModuleType


@lru_cache(maxsize=1)
def registry() -> dict[str, ModuleType]:
    out: dict[str, ModuleType] = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("gd"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if module.CODE in out or not info.name.startswith(module.CODE.lower() + "_"):
            raise RuntimeError(f"edit module {info.name} does not match its code {module.CODE}")
        out[module.CODE] = module
    return dict(sorted(out.items()))


def codes() -> list[str]:
    """The codes that have an edit (no libcst needed to ask)."""
    return sorted(info.name[:5].upper() for info in pkgutil.iter_modules(__path__) if info.name.startswith("gd"))


def describe(code: str) -> str | None:
    """What the edit for `code` does, from its module's docstring (read without importing libcst)."""
    import ast
    from pathlib import Path

    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith(code.lower() + "_"):
            doc = ast.get_docstring(ast.parse((Path(__path__[0]) / f"{info.name}.py").read_text(encoding="utf-8")))
            text = " ".join((doc or "").split())
            return text.split(": ", 1)[1] if text.startswith(code + ":") else text
    return None
