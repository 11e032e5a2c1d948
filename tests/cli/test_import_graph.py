"""No import circle anywhere in the package, and no command module imports the dispatcher.

The graph is read from the source with `ast`, so it counts every import, also the ones
inside functions that a circle hides behind: a module that imports another only when
called still ties the two together for a reader (and for `farm-studio look`).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "graddoctor"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The graddoctor modules `name` imports, resolved to the module that defines them."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import sub` imports the submodule when there is one
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        out.update(t for t in targets if t in known and t != name)
    return out


def _graph() -> dict[str, set[str]]:
    known = _modules()
    return {name: _imports(name, path, known) for name, path in known.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, as the list of modules around it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_walker_sees_a_circle_hidden_in_a_function(tmp_path):
    # the near miss for the checker itself: a lazy import still closes a circle
    graph = {"a": {"b"}, "b": {"a"}, "c": set()}
    assert _cycle(graph) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_circle_in_the_package():
    found = _cycle(_graph())
    assert found is None, "import circle: " + " -> ".join(found)


def test_command_modules_import_cli_pieces_not_the_dispatcher():
    graph = _graph()
    commands = ["graddoctor.lint.cli", "graddoctor.explain.cli", "graddoctor.demo.cli",
                "graddoctor.runner.cli_run", "graddoctor.checklist.cli"]
    for name in commands:
        assert "graddoctor.cli.parser" in graph[name] or "graddoctor.cli.exits" in graph[name], name
        assert not graph[name] & {"graddoctor.cli", "graddoctor.cli.commands"}, name
