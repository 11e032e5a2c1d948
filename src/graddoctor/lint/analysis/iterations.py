"""The iterations a file trains in: each loop body, and each function body, as call sequences."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from graddoctor.lint.analysis.flow import CLIP_FUNCTIONS, SELF_UNSCALING_CLIP, Event, unit_events
from graddoctor.lint.analysis.model import FileAnalysis, Unit
from graddoctor.lint.analysis.returns import local_callee

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


_TRAINING_CALLS = frozenset(
    {"backward", "manual_backward", "step", "optimizer_step", "zero_grad", "zero_", "detach_", "unscale_", "set_grad_enabled"}
) | CLIP_FUNCTIONS | SELF_UNSCALING_CLIP


def _units_with_training_calls(a: FileAnalysis) -> set[int]:
    """Units that call something the flow cares about, or a helper of this file that (in turn) does.

    Helpers are followed (`train_step(...)`, `self.optimizer_step()`, `agent.learn(batch)`) to a
    fixpoint, so a `fit()` that only calls methods is kept when one of them
    steps, while library code full of `self.layer(x)` calls is skipped.
    """
    busy: set[int] = set()
    callers: dict[int, set[int]] = {}  # callee unit -> units that call it
    by_name: dict[str, list[Unit]] = {}  # method name -> the units of the file's methods of that name
    for u in a.units:
        if u.cls is not None and isinstance(u.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            by_name.setdefault(u.node.name, []).append(u)
    for call, ctx in a.calls:
        unit = id(ctx.unit)
        func = call.func
        kind = type(func)
        if kind is ast.Attribute:
            if func.attr in _TRAINING_CALLS:
                busy.add(unit)
                continue
        elif kind is ast.Name:
            if func.id in _TRAINING_CALLS:
                busy.add(unit)
                continue
        else:
            continue
        callee = local_callee(a, call, ctx.unit)
        if callee is not None:
            callee_unit = a.unit_of.get(id(callee))
            if callee_unit is not None:
                callers.setdefault(id(callee_unit), set()).add(unit)
        elif kind is ast.Attribute and func.attr in by_name:  # `cb.on_step_end()`: any method of that name
            for callee_unit in by_name[func.attr]:
                callers.setdefault(id(callee_unit), set()).add(unit)
    if ".grad = " in a.source or ".grad=" in a.source:
        busy.update(id(u) for u in a.units)
    todo = list(busy)
    while todo:
        for caller in callers.get(todo.pop(), ()):
            if caller not in busy:
                busy.add(caller)
                todo.append(caller)
    return busy


def iterations(a: FileAnalysis) -> list[Iteration]:
    """Loops and function bodies that contain at least one training call (cached on `a`).

    Each unit is walked once; a loop's iteration is its slice of the unit's
    events, so nested loops cost no second walk.
    """
    cached = getattr(a, "_iterations", None)
    if cached is not None:
        return cached
    out: list[Iteration] = []
    if any(word in a.source for word in _RELEVANT):
        outer = {id(loop): ctx.loops for loop, ctx in a.loops}
        busy = _units_with_training_calls(a)
        for unit in a.units:
            if id(unit) not in busy:
                continue
            cls = unit.cls.name if unit.cls else None
            events, spans = unit_events(unit.node.body, a, cls, unit.node)
            if not events:
                continue
            if isinstance(unit.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append(Iteration(unit.node, "function", unit, [e.within(None) for e in events], ()))
            for loop, first, last in spans:
                if last > first:
                    sliced = [e.within(loop) for e in events[first:last]]
                    out.append(Iteration(loop, "loop", unit, sliced, outer.get(id(loop), ())))
    a._iterations = out  # type: ignore[attr-defined]
    return out
