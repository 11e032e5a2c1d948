"""GD203: step your optimizer after the backward (`optimizer.step()`; under a GradScaler,
`scaler.step(optimizer)` then `scaler.update()`). Where the loop already steps under an accumulation
condition that never held, the condition also holds at the last batch (`or i + 1 == len(loader)`);
where the loop steps anywhere already, no second step is added."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import calls_in, name_of, optimizer_name
from graddoctor.editing.source import Change, Source, after, expression, receiver, statement

CODE = "GD203"


def edit(finding: Finding, src: Source) -> Change | None:
    backward_stmt = src.statement_at(finding.line)
    calls = calls_in(src, backward_stmt, "backward") if backward_stmt is not None else []
    if not calls:
        return None
    optimizer = optimizer_name(src, backward_stmt)
    if optimizer is None:
        return None
    loop = src.enclosing(backward_stmt, (cst.For, cst.While))
    scope = loop if loop is not None else (src.enclosing(backward_stmt, cst.FunctionDef) or src.tree)
    steps = [c for c in calls_in(src, scope, "step") if optimizer in (name_of(src, receiver(c)), _first_arg(src, c))]
    if steps:
        return _step_at_last_batch(src, loop, steps)
    scaled = {name_of(src, receiver(c)) for c in calls_in(src, backward_stmt, "scale")}
    if scaled:
        scaler = scaled.pop()
        if scaler is None or scaled:
            return None
        return Change(f"call `{scaler}.step({optimizer})` and `{scaler}.update()` after the backward",
                      {backward_stmt: after(statement(f"{scaler}.step({optimizer})"), statement(f"{scaler}.update()"))})
    return Change(f"call `{optimizer}.step()` after the backward", {backward_stmt: after(statement(f"{optimizer}.step()"))})


def _step_at_last_batch(src: Source, loop, steps: list[cst.Call]) -> Change | None:
    """The loop steps, but only under an `if` that never held in the run (an accumulation count larger than
    the epoch): the same `if` also holds at the last batch of `for i, batch in enumerate(loader)`."""
    if loop is None or not isinstance(loop, cst.For) or len(steps) != 1:
        return None
    guard = src.enclosing(steps[0], cst.If)
    if guard is None or src.enclosing(guard, (cst.For, cst.While)) is not loop or guard.orelse is not None:
        return None  # an `else:` or `elif` path: a second step could run there
    if not calls_in(src, guard.body, "zero_grad"):
        return None  # the pattern is not accumulation (step and zero together at the boundary)
    index, loader = _enumerated(loop)
    if index is None:
        return None
    test = src.code(guard.test)
    new = expression(f"({test}) or {index} + 1 == len({loader})" if _needs_parens(guard.test) else
                     f"{test} or {index} + 1 == len({loader})")
    return Change(f"also step (and zero) at the last batch: `or {index} + 1 == len({loader})`", {guard.test: new})


def _enumerated(loop: cst.For) -> tuple[str | None, str | None]:
    """(`i`, `loader`) of `for i, ... in enumerate(loader)` (loader a plain name or attribute)."""
    it = loop.iter
    target = loop.target
    if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "enumerate"
            and len(it.args) == 1 and isinstance(target, cst.Tuple) and target.elements
            and isinstance(target.elements[0].value, cst.Name)):
        return None, None
    loader = it.args[0].value
    if not isinstance(loader, (cst.Name, cst.Attribute)):
        return None, None
    return target.elements[0].value.value, cst.Module([]).code_for_node(loader)


def _needs_parens(test: cst.BaseExpression) -> bool:
    return isinstance(test, (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr))


def _first_arg(src: Source, call: cst.Call) -> str | None:
    return name_of(src, call.args[0].value) if call.args else None
