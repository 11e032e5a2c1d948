"""The checklist is tied to real codes and real tests, and printed and documented from one source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from graddoctor.checklist.items import CHECKLISTS, CLAIMS, TESTS
from graddoctor.checklist.render import markdown, text
from graddoctor.rules import all_rules

ROOT = Path(__file__).resolve().parents[2]


def _test_names() -> set[str]:
    tree = ast.parse((ROOT / TESTS).read_text())
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def _cited() -> list[str]:
    names = [t for c in CHECKLISTS for item in c.items for t in item.tests]
    return names + [t for claim in CLAIMS for t in claim.tests]


def test_every_cited_test_exists():
    missing = sorted(set(_cited()) - _test_names())
    assert missing == []


def test_every_claim_test_is_cited():
    """A claim verified but not on the page is wasted; an uncited test may hide a claim we dropped."""
    assert sorted(_test_names() - set(_cited())) == []


def test_every_item_has_a_test_and_only_real_codes():
    codes = {rule.code for rule in all_rules()}
    for checklist in CHECKLISTS:
        for item in checklist.items:
            assert item.tests, item.check
            assert set(item.codes) <= codes, item.codes
    assert all(claim.verdict in ("true", "false") and claim.tests for claim in CLAIMS)


def test_both_checklists_are_there():
    assert [c.title for c in CHECKLISTS] == ["Loss does not go down", "Gradient is None"]


def test_committed_page_is_the_rendered_source():
    assert (ROOT / "docs" / "checklist.md").read_text() == markdown(), "run `make docs`"


def test_cli_prints_the_same_items(graddoctor_cli):
    ran = graddoctor_cli("checklist")  # the real command, once
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == text(width=100)
    for name in _cited():
        assert f"{TESTS}::{name}" in ran.stdout
    assert "LOSS DOES NOT GO DOWN" in ran.stdout and "GRADIENT IS NONE" in ran.stdout


def test_cli_markdown_format_is_the_page(capsys):
    from graddoctor.cli import main

    assert main(["checklist", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == markdown()


def test_cli_usage_error_exits_2(capsys):
    from graddoctor.cli import main

    with pytest.raises(SystemExit) as info:
        main(["checklist", "--nonsense"])
    assert info.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err
