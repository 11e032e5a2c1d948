"""The lint checks: each rule's `check.py`, found by discovery (no hand-kept list).

Each check module defines `CODE` and `check(analysis, reporter) -> None`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import lru_cache

from graddoctor.rules.parts import codes_with, homes


@lru_cache(maxsize=1)
def all_checks() -> dict[str, Callable]:
    found: dict[str, Callable] = {}
    for code in codes_with("check"):
        module = importlib.import_module(homes()[code].part_module("check"))
        if module.CODE != code:
            raise RuntimeError(f"{module.__name__} checks {module.CODE}, but its rule is {code}")
        found[code] = module.check
    return found


def checks_for(select=None) -> list[Callable]:
    return [fn for code, fn in all_checks().items() if select is None or select(code)]
