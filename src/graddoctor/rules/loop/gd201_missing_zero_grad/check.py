"""GD201: a training loop that steps the optimizer but never clears gradients between steps."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.reporter import Reporter

CODE = "GD201"


def _built_in_loop(a: FileAnalysis, it, step) -> bool:
    """`opt = optim.SGD(...); opt.step()` inside the loop: a fresh optimizer per pass is a one-shot check, not training."""
    b = a.binding_before(it.unit, step.target, step.line)
    loop = it.node
    return (
        b is not None
        and loop.lineno <= b.line <= (loop.end_lineno or loop.lineno)
        and type(b.value) is ast.Call
        and a.names.classify_call(b.value) == "optimizer"
    )


def _built_from(a: FileAnalysis, target: str) -> str | None:
    """The source of the parameters `target` is built from (`G.parameters()`), when the file builds it once."""
    found: set[str] = set()
    for unit in a.units:
        for b in unit.bindings.get(target, ()):
            value = b.value
            if type(value) is not ast.Call or a.names.classify_call(value) != "optimizer":
                return None  # assigned from something else too (`self.optimizers()`, a parameter): unknown
            params = value.args[0] if value.args else next((k.value for k in value.keywords if k.arg == "params"), None)
            if params is None:
                return None
            found.add(a.segment(params))
    return found.pop() if len(found) == 1 else None


def _disjoint(a: FileAnalysis, one: str | None, other: str | None) -> bool:
    """Whether two optimizers surely own different parameters: each built once here, from different sources."""
    if one is None or other is None:
        return False
    mine, theirs = _built_from(a, one), _built_from(a, other)
    return mine is not None and theirs is not None and mine != theirs


def check(a: FileAnalysis, r: Reporter) -> None:
    for it in iterations(a):
        if it.kind != "loop" and getattr(it.node, "name", "") != "training_step":
            continue
        steps = it.of("step")
        if not steps or not it.of("backward"):
            continue
        if any(e.kind == "opaque" for e in it.events):
            continue  # a helper we cannot see gets the optimizer: it may clear gradients
        clears = it.of("zero_grad")
        if any(e.model_zero or e.target is None for e in clears):
            continue
        stepped = {e.target for e in steps}
        cleared = {e.target for e in clears}
        if not cleared <= stepped:
            continue  # `opt.zero_grad()` on a name we cannot match (a loop variable, an alias): it may be this one
        for step in steps:
            if step.target is None or step.target in cleared or _built_in_loop(a, it, step):
                continue
            if any(not _disjoint(a, step.target, other) for other in cleared):
                continue  # `opt_b.zero_grad()` clears what `opt_a` steps when both hold the same parameters
            backward = it.of("backward")[0]
            r.add(
                CODE,
                f"`{step.target}` steps on line {step.line} in this loop, but its gradients are never cleared "
                "between steps, so each step applies the sum of all gradients so far.",
                step.node,
                related=[r.related(backward.line, "gradients accumulate here on every iteration")],
                hint=f"Call `{step.target}.zero_grad()` once per step, e.g. right after `{step.target}.step()`.",
            )
