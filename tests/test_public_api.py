"""The public API is listed once: `__all__` is the `_EXPORTS` table, and every name loads."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import graddoctor


def test_all_is_the_exports_table_and_every_name_resolves():
    assert graddoctor.__all__ == sorted([*graddoctor._EXPORTS, "__version__"])
    for name in graddoctor.__all__:
        assert getattr(graddoctor, name) is not None, name
    for name, module in graddoctor._EXPORTS.items():
        assert getattr(importlib.import_module(module), name) is getattr(graddoctor, name), name


def test_the_type_checking_imports_name_the_same_table():
    tree = ast.parse(Path(graddoctor.__file__).read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    imported = {alias.name: node.module for node in block.body for alias in node.names}
    assert imported == graddoctor._EXPORTS
