"""Rule documentation: every code documented in the house format, pages generated from the docstrings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graddoctor.docs_build import build, rule_body, stale
from graddoctor.rules import all_rules
from graddoctor.rules.base import REQUIRED_SECTIONS

ROOT = Path(__file__).resolve().parent.parent
RULE_FILES = sorted((ROOT / "src" / "graddoctor" / "rules").glob("*/gd*/__init__.py"))  # each rule's page


def test_codes_are_unique_across_the_rule_files():
    codes = [re.search(r"code='(GD\d{3})'|code=\"(GD\d{3})\"", p.read_text()) for p in RULE_FILES]
    found = [m.group(1) or m.group(2) for m in codes if m]
    assert len(found) == len(RULE_FILES)
    assert len(found) == len(set(found))


def test_file_names_match_codes_and_names():
    for rule in all_rules():
        expected = f"{rule.code.lower()}_{rule.name.replace('-', '_')}/__init__.py"
        assert (ROOT / "src" / "graddoctor" / "rules" / rule.family / expected).is_file(), expected


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_rule_has_the_house_sections(rule):
    assert rule.doc.startswith(f"{rule.code} {rule.name} ("), rule.doc.split("\n")[0]
    for title in REQUIRED_SECTIONS:
        assert rule.section(title), f"{rule.code}: missing or empty section {title!r}"
    titles = re.findall(r"^## (.+)$", rule.doc, re.M)
    assert titles[: len(REQUIRED_SECTIONS)] == list(REQUIRED_SECTIONS), titles
    assert "```" in rule.section("Example") and "```" in rule.section("Use instead")
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", rule.name)  # fp16-... names a dtype
    assert rule.hint and rule.summary


def test_committed_pages_are_what_the_docstrings_generate():
    assert stale(ROOT / "docs") == [], "docs/ is out of date: run `make docs`"


def test_every_code_has_a_page_and_the_index_links_it():
    pages = build()
    index = (ROOT / "docs" / "index.md").read_text()
    for rule in all_rules():
        assert f"rules/{rule.code}.md" in pages
        assert f"](rules/{rule.code}.md)" in index
    assert "](checklist.md)" in index


def test_rules_command_prints_the_page_text(capsys):
    from graddoctor.cli import main

    rule = next(r for r in all_rules() if r.code == "GD104")
    assert main(["rules", "GD104"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("GD104 parameter-without-gradient (error, runtime)")
    assert rule_body(rule) in out
    assert out.rstrip().endswith(f"Fix: {rule.hint}")
    assert rule_body(rule) in (ROOT / "docs" / "rules" / "GD104.md").read_text()


def test_docs_build_check_mode_reports_a_drifted_page(tmp_path):
    import shutil

    from graddoctor.docs_build import main

    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    assert main(["--docs", str(tmp_path / "docs"), "--check"]) == 0
    page = tmp_path / "docs" / "rules" / "GD101.md"
    page.write_text(page.read_text().replace("What it does", "What it did"))
    (tmp_path / "docs" / "rules" / "GD999.md").write_text("# a rule that does not exist\n")
    assert stale(tmp_path / "docs") == ["rules/GD101.md", "rules/GD999.md"]
    assert main(["--docs", str(tmp_path / "docs"), "--check"]) == 1
    assert main(["--docs", str(tmp_path / "docs")]) == 0
    assert stale(tmp_path / "docs") == []


@pytest.mark.parametrize("rule", [r for r in all_rules() if "R" in r.detected], ids=lambda r: r.code)
def test_every_runtime_rule_states_the_evidence_a_warning_needs_on_its_page(rule):
    assert len(rule.evidence_needed) > 40, f"{rule.code}: no evidence_needed in its Rule"
    assert f"Evidence a warning needs: {rule.evidence_needed}" in rule_body(rule)
