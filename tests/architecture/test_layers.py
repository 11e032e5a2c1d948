"""The layers of `layers.py` hold: no import goes up, and no circle between folders.

Each test has a near miss for the checker itself, so a checker that sees nothing fails too.
"""

from __future__ import annotations

from tests.architecture.imports import PACKAGE, find_cycle, import_graph
from tests.architecture.layers import LAYERS, layer_of, unit_of


def _unit_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    units: dict[str, set[str]] = {}
    for module, imported in graph.items():
        units.setdefault(unit_of(module), set()).update(unit_of(m) for m in imported)
    return {unit: targets - {unit} for unit, targets in units.items()}


def _upward_imports(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for module, imported in sorted(graph.items()):
        for target in sorted(imported):
            if layer_of(unit_of(target)) < layer_of(unit_of(module)):
                out.append(f"{module} -> {target}")
    return out


def test_every_folder_has_a_layer():
    units = {unit_of(m) for m in import_graph()}
    named = {u for _, us in LAYERS for u in us}
    assert not units - named, f"add these to tests/architecture/layers.py: {sorted(units - named)}"
    assert (PACKAGE / "cli").is_dir()


def test_no_import_goes_up_a_layer():
    bad = _upward_imports(import_graph())
    assert not bad, "a lower layer imports a higher one:\n  " + "\n  ".join(bad)


def test_no_circle_between_folders():
    found = find_cycle(_unit_graph(import_graph()))
    assert found is None, "folders import each other in a circle: " + " -> ".join(found)


def test_the_checker_sees_a_lower_layer_importing_a_higher_one():
    graph = {"graddoctor.finding": {"graddoctor.observers.graph"}, "graddoctor.observers.graph": set()}
    assert _upward_imports(graph) == ["graddoctor.finding -> graddoctor.observers.graph"]
    # a judge is a rule part above the engines; its page is catalogue, below them
    judge = "graddoctor.rules.loop.gd207_graph_kept_alive.judge"
    page = "graddoctor.rules.loop.gd207_graph_kept_alive"
    assert _upward_imports({judge: {"graddoctor.loop.state"}, "graddoctor.loop.state": set()}) == []
    assert _upward_imports({page: {"graddoctor.loop.state"}}) == [f"{page} -> graddoctor.loop.state"]


def test_the_checker_sees_a_circle_between_folders():
    graph = {"graddoctor.graph.walk": {"graddoctor.session.observer"}, "graddoctor.session.observer": {"graddoctor.graph.naming"}}
    assert find_cycle(_unit_graph(graph)) == ["graph", "session", "graph"]
