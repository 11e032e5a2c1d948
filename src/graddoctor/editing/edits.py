"""The edits: each rule's `edit.py`, found by discovery.

Each edit module holds `CODE` and `edit(finding, source) -> Change | None`: the change of the
finding's own file that removes the finding, written in the user's names, or None when
the code around the finding's line does not have the shape the edit knows.
"""

from __future__ import annotations

import ast
import importlib
from functools import lru_cache
from types import ModuleType

from graddoctor.rules.parts import PART_FILES, codes_with, homes


@lru_cache(maxsize=1)
def registry() -> dict[str, ModuleType]:
    out: dict[str, ModuleType] = {}
    for code in codes_with("edit"):
        module = importlib.import_module(homes()[code].part_module("edit"))
        if module.CODE != code:
            raise RuntimeError(f"{module.__name__} edits {module.CODE}, but its rule is {code}")
        out[code] = module
    return out


def codes() -> list[str]:
    """The codes that have an edit (no libcst needed to ask)."""
    return codes_with("edit")


def describe(code: str) -> str | None:
    """What the edit for `code` does, from its module's docstring (read without importing libcst)."""
    home = homes().get(code)
    if home is None or home.part_module("edit") is None:
        return None
    doc = ast.get_docstring(ast.parse((home.path / PART_FILES["edit"]).read_text(encoding="utf-8")))
    text = " ".join((doc or "").split())
    return text.split(": ", 1)[1] if text.startswith(code + ":") else text
