"""GD201: a training loop that steps the optimizer but never clears gradients between steps."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import dotted
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


def _cleared_module(event) -> str | None:
    """`teacher.zero_grad()`: the name of the module whose gradients a model-level clear empties."""
    func = getattr(event.node, "func", None)
    if type(func) is not ast.Attribute or func.attr != "zero_grad":
        return None
    return dotted(func.value)


def _built_modules(a: FileAnalysis, key: str) -> list[ast.Call] | None:
    """Every construction of `key` in the file, when each is a module built there (`Net(...)`), else None."""
    calls = [b.value for unit in a.units for b in unit.bindings.get(key, ())]
    if not calls or any(type(c) is not ast.Call or a.names.classify_call(c) != "module" for c in calls):
        return None
    return calls


def _other_module(a: FileAnalysis, model: str, optimizer: str) -> bool:
    """Whether `model.zero_grad()` surely clears none of `optimizer`'s parameters.

    Only when the optimizer is built once from `other.parameters()`, and `model` and `other` are
    two different modules each built in this file without the other (a wrapper built from both,
    `Pair(student, teacher)`, owns both).
    """
    source = _built_from(a, optimizer)
    if source is None or not source.endswith(".parameters()"):
        return False
    other = source[: -len(".parameters()")]
    if other == model or other.startswith(model + ".") or model.startswith(other + "."):
        return False
    mine, theirs = _built_modules(a, model), _built_modules(a, other)
    if mine is None or theirs is None:
        return False
    mentions = {dotted(n) for c in mine + theirs for n in ast.walk(c) if type(n) in (ast.Name, ast.Attribute)}
    return model not in mentions and other not in mentions


def _enclosing_ifs(root: ast.AST, node: ast.AST) -> list[tuple[ast.If, bool]]:
    """The `if` statements inside `root` around `node`, innermost last, each with whether `node` is in its body."""
    found: list[tuple[ast.If, bool]] = []

    def walk(parent: ast.AST) -> bool:
        for child in ast.iter_child_nodes(parent):
            if child is node:
                return True
            if walk(child):
                if type(child) is ast.If:
                    found.insert(0, (child, any(node in ast.walk(s) for s in child.body)))
                return True
        return False

    walk(root)
    return found


def _cleared_only_periodically(a: FileAnalysis, it, step, clears) -> int | None:
    """`opt.step()` on every pass but `opt.zero_grad()` only under `if step % log_every == 0:` (a clear moved into a
    logging branch): the line of that `if`, when every clear of the optimizer sits in a branch whose test is periodic
    (`%`) and whose other branch clears nothing, and the step is under no `if` of the iteration at all."""
    if _enclosing_ifs(it.node, step.node):
        return None  # `if (i + 1) % accum == 0: opt.step()`: the step is conditional too (accumulation)
    mine = [e for e in clears if e.target == step.target and not e.model_zero]
    if not mine or len(mine) != len([e for e in clears if not e.model_zero]) or any(e.model_zero for e in clears):
        return None
    line = None
    for e in mine:
        ifs = _enclosing_ifs(it.node, e.node)
        if not ifs:
            return None
        branch, in_body = ifs[-1]
        other = branch.orelse if in_body else branch.body
        periodic = any(type(n) is ast.BinOp and type(n.op) is ast.Mod for n in ast.walk(branch.test))
        if not periodic or any(c.node in ast.walk(s) for c in clears for s in other):
            return None
        line = branch.lineno
    return line


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
        models = [_cleared_module(e) for e in clears if e.model_zero]
        if any(m is None for m in models) or any(e.target is None and not e.model_zero for e in clears):
            continue  # `p.grad.zero_()`, `self.zero_grad()`: what they clear is not known
        stepped = {e.target for e in steps}
        cleared = {e.target for e in clears if not e.model_zero}
        if not cleared <= stepped:
            continue  # `opt.zero_grad()` on a name we cannot match (a loop variable, an alias): it may be this one
        for step in steps:
            if step.target is None or _built_in_loop(a, it, step):
                continue
            if step.target in cleared:
                periodic = _cleared_only_periodically(a, it, step, clears)
                if periodic is not None:
                    r.add(
                        CODE,
                        f"`{step.target}` steps on every pass (line {step.line}), but its gradients are cleared only "
                        f"under the `if` on line {periodic}, so the steps in between apply the sum of all gradients "
                        "since the last clear.",
                        step.node,
                        related=[r.related(periodic, "gradients are cleared only when this holds")],
                        hint=f"Call `{step.target}.zero_grad()` on every step, outside the `if` (e.g. right after "
                             f"`{step.target}.step()`).",
                    )
                continue
            if any(not _disjoint(a, step.target, other) for other in cleared):
                continue  # `opt_b.zero_grad()` clears what `opt_a` steps when both hold the same parameters
            if any(not _other_module(a, model, step.target) for model in models):
                continue  # `model.zero_grad()` clears the optimizer's gradients unless it surely owns none of them
            backward = it.of("backward")[0]
            r.add(
                CODE,
                f"`{step.target}` steps on line {step.line} in this loop, but its gradients are never cleared "
                "between steps, so each step applies the sum of all gradients so far.",
                step.node,
                related=[r.related(backward.line, "gradients accumulate here on every iteration")] + [
                    r.related(e.line, f"`{_cleared_module(e)}.zero_grad()` clears another module's gradients")
                    for e in clears if e.model_zero],
                hint=f"Call `{step.target}.zero_grad()` once per step, e.g. right after `{step.target}.step()`.",
            )
