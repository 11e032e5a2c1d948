"""The finding catalogue: one rule per file, grouped by family, found by discovery.

Each rule module holds a module docstring (its documentation, in the house
format) and a module-level `RULE`. Nothing here lists the rules by hand, so the
catalogue cannot drift from the files.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from graddoctor.rules.base import Rule

__all__ = ["Rule", "all_rules", "get_rule", "make"]

_FAMILIES = ("graph", "loop", "numerics", "frameworks", "data", "errors", "input")


@lru_cache(maxsize=1)
def _registry() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for family in _FAMILIES:
        package = importlib.import_module(f"{__name__}.{family}")
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            rule = getattr(module, "RULE", None)
            if rule is None:
                continue
            if rule.code in rules:
                raise RuntimeError(f"duplicate rule code {rule.code} in {module.__name__}")
            rule.family = family
            rules[rule.code] = rule
    return dict(sorted(rules.items()))


def all_rules() -> list[Rule]:
    """Every rule of the catalogue, ordered by code."""
    return list(_registry().values())


def get_rule(code: str) -> Rule:
    """The rule for `code` (e.g. "GD104"); KeyError if there is none."""
    return _registry()[code.upper()]


def make(code: str, message: str, **fields):
    """Build a Finding for `code`, filling name, severity and the default hint."""
    return get_rule(code).finding(message, **fields)
