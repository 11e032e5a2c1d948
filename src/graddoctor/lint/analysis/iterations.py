"""The iterations a file trains in: each loop body, and each function body, as call sequences."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from graddoctor.lint.analysis.flow import Event, iteration_events
from graddoctor.lint.analysis.model import FileAnalysis, Unit

_RELEVANT = ("backward", "step", "clip_grad", "zero_grad", "clip_gradients")


@dataclass
class Iteration:
    node: ast.AST  # the loop, or the function
    kind: str  # "loop" or "function"
    unit: Unit
    events: list[Event]
    outer_loops: tuple[ast.stmt, ...]

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]


def iterations(a: FileAnalysis) -> list[Iteration]:
    """Loops and function bodies that contain at least one training call (cached on `a`)."""
    cached = getattr(a, "_iterations", None)
    if cached is not None:
        return cached
    out: list[Iteration] = []
    if any(word in a.source for word in _RELEVANT):
        for loop, ctx in a.loops:
            cls = ctx.unit.cls.name if ctx.unit.cls else None
            events = iteration_events(loop.body, a, cls)
            if events:
                out.append(Iteration(loop, "loop", ctx.unit, events, ctx.loops))
        for unit in a.units:
            if isinstance(unit.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                cls = unit.cls.name if unit.cls else None
                events = iteration_events(unit.node.body, a, cls)
                if events:
                    out.append(Iteration(unit.node, "function", unit, events, ()))
    a._iterations = out  # type: ignore[attr-defined]
    return out
