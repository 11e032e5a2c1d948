"""The finding catalogue: one package per rule, grouped by family, found by discovery.

Each rule package (`rules/<family>/gdNNN_<name>/`) holds its page (the package
docstring, in the house format) and a module-level `RULE`; its other parts sit
beside it (see `parts.py`). Nothing here lists the rules or families by hand, so
the catalogue cannot drift from the files. Only the pages are imported here: the
parts import engines, torch or libcst, which the catalogue must not need.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from graddoctor.rules.base import Rule
from graddoctor.rules.parts import homes

__all__ = ["Rule", "all_rules", "get_rule", "make"]


@lru_cache(maxsize=1)
def _registry() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for code, home in homes().items():
        rule = importlib.import_module(home.module).RULE
        if rule.code != code:
            raise RuntimeError(f"{home.module} holds {rule.code}, but its folder says {code}")
        rule.family = home.family
        rules[code] = rule
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
