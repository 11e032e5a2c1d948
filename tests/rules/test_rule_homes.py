"""One rule, one home: every part of a code lives in `rules/<family>/gdNNN_<name>/` or in an engine its page names.

Read from the source with `ast` (nothing of the parts is imported), so a part that someone
adds in the wrong folder, or a producer of a code that its page does not name, fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from graddoctor.cli.catalogue import where_it_lives
from graddoctor.demo.programs import load
from graddoctor.rules import all_rules, get_rule
from graddoctor.rules.parts import PACKAGE_DIR, PART_FILES, RULES_DIR, homes

_CODE = re.compile(r"^GD\d{3}$")
# Calls whose first argument is the code of the finding (or error pattern) they build.
_PRODUCING_CALLS = {"make", "get_rule", "_add", "_p", "pattern"}


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _produced_codes(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        value = node.args[0].value
        if name in _PRODUCING_CALLS and isinstance(value, str) and _CODE.match(value):
            out.add(value)
    return out


def _outside_rules() -> list[Path]:
    return [p for p in PACKAGE_DIR.rglob("*.py") if RULES_DIR not in p.parents]


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_each_code_has_its_package_named_after_it(rule):
    home = homes()[rule.code]
    assert home.path == RULES_DIR / rule.family / f"{rule.code.lower()}_{rule.name.replace('-', '_')}"
    assert (home.path / "__init__.py").is_file()


def test_no_code_named_module_outside_the_rules():
    strays = [p.relative_to(PACKAGE_DIR).as_posix() for p in _outside_rules() if re.match(r"gd\d{3}_", p.name)]
    assert not strays, f"parts of rules outside rules/<family>/gdNNN_*/: {strays}"


def test_every_producer_outside_the_rules_is_a_named_engine():
    undeclared = []
    for path in _outside_rules():
        module = _module(path)
        for code in _produced_codes(path):
            if module not in get_rule(code).engines:
                undeclared.append(f"{module} produces {code}")
    assert not undeclared, "name these engines in the rules' pages (Rule.engines): " + "; ".join(sorted(undeclared))


@pytest.mark.parametrize("rule", [r for r in all_rules() if r.engines], ids=lambda r: r.code)
def test_every_named_engine_exists_and_produces_the_code(rule):
    for engine in rule.engines:
        path = PACKAGE_DIR.parent / (engine.replace(".", "/") + ".py")
        assert path.is_file(), f"{rule.code} names {engine}, which does not exist"
        assert rule.code in _produced_codes(path), f"{rule.code} names {engine}, which does not produce it"


@pytest.mark.parametrize("part", ["check", "edit"])
def test_parts_declare_their_own_code(part):
    for code, home in homes().items():
        path = home.path / PART_FILES[part]
        if path.is_file():
            declared = re.search(r'^CODE\s*=\s*"(GD\d{3})"', path.read_text(encoding="utf-8"), re.M)
            assert declared and declared.group(1) == code, f"{path} must declare CODE = {code!r}"


def test_each_demo_program_shows_its_own_rule():
    for code, home in homes().items():
        for demo in home.demos():
            assert code in load(demo).codes, f"{demo.name} lives with {code} but does not expect it"


def test_rules_command_lists_where_each_part_lives():
    text = where_it_lives("GD207", get_rule("GD207").engines)
    for part in ("page", "judge", "check", "edit", "demo", "helper"):
        assert re.search(rf"^\s+{part}\s+rules/loop/gd207_graph_kept_alive/", text, re.M), text
    for line in text.splitlines()[1:]:
        assert (PACKAGE_DIR / line.split()[-1]).is_file(), line
    engines = where_it_lives("GD201", get_rule("GD201").engines)
    assert re.search(r"^\s+engine\s+observers/loop_audit\.py$", engines, re.M), engines
