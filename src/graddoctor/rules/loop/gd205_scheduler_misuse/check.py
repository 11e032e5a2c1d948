"""GD205: a scheduler stepped before the optimizer's first step, or an epoch scheduler stepped per batch."""

from __future__ import annotations

import ast
import re

from graddoctor.lint.analysis.flow import exclusive
from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis, calls_in
from graddoctor.lint.analysis.returns import local_callee
from graddoctor.lint.analysis.names import EPOCH_SCHEDULERS
from graddoctor.lint.reporter import Reporter

CODE = "GD205"


def check(a: FileAnalysis, r: Reporter) -> None:
    if "step" not in a.source:
        return
    for it in iterations(a):
        if it.kind != "loop":
            continue
        events = it.events
        for i, e in enumerate(events):
            if e.kind != "sched":
                continue
            # Only calls that can run in the same pass as this scheduler step (not the other arm of its `if`).
            before = [x for x in events[:i] if x.kind in ("step", "opaque") and not exclusive(x, e)]
            after = [x for x in events[i + 1 :] if x.kind == "step" and not exclusive(x, e)]
            if not before and after and not any(x.kind == "opaque" for x in events):
                r.add(
                    CODE,
                    f"`{e.target}.step()` runs before the optimizer's step (line {after[0].line}) in each iteration, "
                    "so the first learning rate of the schedule is skipped and the schedule runs one step ahead.",
                    e.node,
                    related=[r.related(after[0].line, "the optimizer steps here, after the scheduler")],
                    hint=f"Call `{e.target}.step()` after `optimizer.step()`.",
                )
                continue
            cls = a.names.cls.get(e.target or "")
            if (
                (cls in EPOCH_SCHEDULERS
                 or (cls == "CosineAnnealingLR" and _epoch_sized_cosine(a.names.call.get(e.target or ""))))
                and not _iteration_sized(a, a.names.call.get(e.target or ""))
                and not e.nested
                and not e.conditional
                and (it.outer_loops or _called_per_epoch(a, it))
                and any(x.kind == "step" and not x.nested for x in events)
            ):
                r.add(
                    CODE,
                    f"`{e.target}` is {'an' if cls[0] in 'AEIOU' else 'a'} {cls}, a schedule counted in epochs, but `{e.target}.step()` runs on every "
                    "batch of the inner loop, so the learning rate decays far faster than intended.",
                    e.node,
                    hint=f"Call `{e.target}.step()` once per epoch, in the outer loop after the batch loop.",
                )


def _epoch_sized_cosine(ctor: ast.Call | None) -> bool:
    """`CosineAnnealingLR(opt, T_max=epochs)`: a period counted in epochs, visible in the argument's
    name (`epochs`, `args.num_epochs`) with nothing multiplying it. `T_max=epochs * len(loader)` or a
    bare number may be sized in iterations on purpose: not judged."""
    if ctor is None:
        return False
    t_max = next((k.value for k in ctor.keywords if k.arg == "T_max"), None)
    if t_max is None and len(ctor.args) >= 2:
        t_max = ctor.args[1]
    return isinstance(t_max, (ast.Name, ast.Attribute)) and "epoch" in ast.unparse(t_max).lower()


_PER_ITERATION = re.compile(r"iter|batches|num_updates|steps_per|total_steps|training_steps", re.I)


def _iteration_sized(a: FileAnalysis, ctor: ast.Call | None) -> bool:
    """`StepLR(opt, step_size=10 * len(loader))`, `milestones=[30 * iters_per_epoch]`: periods counted in batches.

    Such a schedule is meant to step every batch. Names are followed one assignment back.
    """
    if ctor is None:
        return False
    for arg in ctor.args[1:] + [k.value for k in ctor.keywords]:
        for node in ast.walk(arg):
            if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "len":
                return True
            if type(node) is ast.Name and _PER_ITERATION.search(node.id):
                return True
            if type(node) is ast.Name:
                for unit in a.units:
                    for b in unit.bindings.get(node.id, ()):
                        if any(type(c.func) is ast.Name and c.func.id == "len" for c in calls_in(b.value)):
                            return True
    return False


def _called_per_epoch(a: FileAnalysis, it) -> bool:
    """`for epoch in range(90): run_epoch(model, loader, opt, sched)`: the function's own loop is the batch loop.

    Only when the call sits in a loop over epochs and the function's loop is not itself one (a full-batch
    `for epoch in range(epochs)` called once per fold or seed steps its scheduler once per epoch).
    """
    unit = it.unit
    if unit.node is a.tree or "epoch" in _header(a, it.node):
        return False
    return any(
        ctx.loops and local_callee(a, call, ctx.unit) is unit.node and "epoch" in _header(a, ctx.loops[-1])
        for call, ctx in a.calls
    )


def _header(a: FileAnalysis, loop) -> str:
    """`for epoch in range(n)`: the loop's target and what it iterates (a while loop's test), lower case."""
    parts = [loop.test] if type(loop).__name__ == "While" else [loop.target, loop.iter]
    return " ".join(a.segment(p) for p in parts).lower()
