"""The lint checks: one module per code, found by discovery (no hand-kept list).

Each module defines `CODE` and `check(analysis, reporter) -> None`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from functools import lru_cache


@lru_cache(maxsize=1)
def all_checks() -> dict[str, Callable]:
    found: dict[str, Callable] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        code = getattr(module, "CODE", None)
        if code is None:
            continue
        if code in found:
            raise RuntimeError(f"two lint checks for {code}")
        found[code] = module.check
    return found


def checks_for(select=None) -> list[Callable]:
    return [fn for code, fn in all_checks().items() if select is None or select(code)]
