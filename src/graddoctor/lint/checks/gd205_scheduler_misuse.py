"""GD205: a scheduler stepped before the optimizer's first step, or an epoch scheduler stepped per batch."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
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
            before = [x for x in events[:i] if x.kind in ("step", "opaque")]
            after = [x for x in events[i + 1 :] if x.kind == "step"]
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
                (cls in EPOCH_SCHEDULERS or (cls == "CosineAnnealingLR" and _epoch_sized_cosine(a, e.target)))
                and not e.nested
                and not e.conditional
                and it.outer_loops
                and any(x.kind == "step" and not x.nested for x in events)
            ):
                r.add(
                    CODE,
                    f"`{e.target}` is {'an' if cls[0] in 'AEIOU' else 'a'} {cls}, a schedule counted in epochs, but `{e.target}.step()` runs on every "
                    "batch of the inner loop, so the learning rate decays far faster than intended.",
                    e.node,
                    hint=f"Call `{e.target}.step()` once per epoch, in the outer loop after the batch loop.",
                )


def _epoch_sized_cosine(a: FileAnalysis, target: str | None) -> bool:
    """`CosineAnnealingLR(opt, T_max=epochs)`: a period counted in epochs, visible in the argument's
    name (`epochs`, `args.num_epochs`) with nothing multiplying it. `T_max=epochs * len(loader)` or a
    bare number may be sized in iterations on purpose: not judged."""
    if not target:
        return False
    for node in ast.walk(a.tree):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        if not any(ast.unparse(t) == target for t in node.targets):
            continue
        call = node.value
        t_max = next((k.value for k in call.keywords if k.arg == "T_max"), None)
        if t_max is None and len(call.args) >= 2:
            t_max = call.args[1]
        if t_max is None or not isinstance(t_max, (ast.Name, ast.Attribute)):
            return False
        return "epoch" in ast.unparse(t_max).lower()
    return False
