"""GD207: tensors with autograd history accumulated across loop iterations (`total += loss`, `.append(out)`)."""

from __future__ import annotations

import ast
import re

from graddoctor.lint.analysis.model import Ctx, FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.analysis.numbers import gives_number, is_number
from graddoctor.lint.analysis.returns import call_sites, local_callee, returned_value, unpacked_index
from graddoctor.lint.analysis.values import (
    backward_calls, is_loss_call, is_model_call, names_in, names_reaching_backward,
)
from graddoctor.lint.reporter import Reporter

CODE = "GD207"
_DATA_ITER = re.compile(r"loader|data|batch|dataset|tqdm|epoch_iterator", re.I)
_LOGGING = frozenset({"print", "log", "info", "debug", "warning", "add_scalar", "add_scalars", "log_metrics", "write", "format", "set_postfix", "set_description", "log_dict"})
_SAFE_WRAPS = frozenset({"item", "detach", "tolist", "numpy", "cpu_detach", "float", "int"})


def _graph_value(a: FileAnalysis, expr: ast.expr, ctx: Ctx, loop: ast.stmt, receivers: set[str]) -> str | None:
    """The tensor name/expression being accumulated when it certainly carries a graph, else None."""
    if isinstance(expr, ast.BinOp):
        # `loss * x.size(0)`, `loss / n`: arithmetic with a tensor that has a graph keeps the graph
        return _graph_value(a, expr.left, ctx, loop, receivers) or _graph_value(a, expr.right, ctx, loop, receivers)
    if isinstance(expr, ast.Call):
        if call_name(expr) in _SAFE_WRAPS or gives_number(a, expr, ctx.unit):
            return None  # `history.append(evaluate(model, val_loader))` where evaluate returns a float
        if is_loss_call(a, expr) or is_model_call(a, expr) or _helper_returns_graph(a, expr, ctx.unit):
            return "call"
        return None
    if isinstance(expr, (ast.Attribute, ast.Subscript)) and _part_of_output(expr):
        # `outputs.loss`, `out["loss"]`, `out[0]`: a part of a model output (a dict-like ModelOutput,
        # a tuple) holds the graph of the whole
        if dotted(expr) in receivers:
            return "loss"
        return _graph_value(a, expr.value, ctx, loop, receivers)
    if isinstance(expr, ast.Name):
        if expr.id in receivers:
            return "loss"
        b = a.binding_before(ctx.unit, expr.id, getattr(expr, "lineno", 0))
        if b is None or b.ctx.grad_off is not None or (loop is not None and loop not in b.ctx.loops):
            return None
        if isinstance(b.value, ast.Call) and call_name(b.value) in _SAFE_WRAPS:
            return None
        if is_number(a, ctx.unit, expr, expr.lineno):
            return None  # `val_loss = evaluate(...)`, `val_loss, acc = evaluate(...)`: a helper that returns numbers
        value = b.value
        if isinstance(value, ast.Call) and (is_loss_call(a, value) or is_model_call(a, value)):
            return "call"
        if isinstance(value, ast.Call) and _helper_returns_graph(a, value, ctx.unit, unpacked_index(b.stmt, expr.id)):
            return "call"
    return None


# Attributes of a tensor that are no tensor with history.
_METADATA = frozenset({"shape", "dtype", "device", "ndim", "requires_grad", "is_cuda", "grad", "data", "grad_fn", "layout", "names"})


def _part_of_output(expr: ast.Attribute | ast.Subscript) -> bool:
    """`outputs.loss`, `out["loss"]`, `out[0]` of a plain name: not `x.shape`, `p.grad`, `x[i]` of a variable index."""
    if type(expr.value) is not ast.Name:
        return False
    if type(expr) is ast.Attribute:
        return expr.attr not in _METADATA
    return type(expr.slice) is ast.Constant and type(expr.slice.value) in (str, int)


def _helper_returns_graph(a: FileAnalysis, call: ast.Call, unit, index: int | None = None) -> bool:
    """A helper of this file that returns (as its `index`-th item) a loss or model output made with gradients on."""
    if index == -1:
        return False
    found = returned_value(a, call, unit, index)
    if found is None:
        return False
    value, line, inner = found
    if type(value) is ast.Name:
        b = a.binding_before(inner, value.id, line)
        if b is None or b.ctx.grad_off is not None or not isinstance(b.stmt, ast.Assign) or len(b.stmt.targets) != 1:
            return False
        value = b.value
    return type(value) is ast.Call and (is_loss_call(a, value) or is_model_call(a, value))


def check(a: FileAnalysis, r: Reporter) -> None:
    if not a.loops or not (a.augassigns or "append" in a.source):
        return
    reach: set[str] | None = None
    loop_backward: dict[int, set[str]] = {}
    for call, recv, ctx in backward_calls(a):
        for loop in ctx.loops:
            loop_backward.setdefault(id(loop), set()).update(names_in(recv))
    for loop in _loops_training_through_helpers(a):
        loop_backward.setdefault(id(loop), set())
    candidates: list[tuple[ast.AST, str, ast.expr, Ctx]] = []
    for aug, ctx in a.augassigns:
        if ctx.loops and isinstance(aug.op, ast.Add) and ctx.grad_off is None:
            key = dotted(aug.target)
            if key:
                candidates.append((aug, key, aug.value, ctx))
    for call, ctx in a.calls:
        if (
            ctx.loops
            and ctx.grad_off is None
            and call_name(call) == "append"
            and isinstance(call.func, ast.Attribute)
            and len(call.args) == 1
        ):
            key = dotted(call.func.value)
            if key:
                candidates.append((call, key, call.args[0], ctx))
    for node, key, value, ctx in candidates:
        loop = ctx.loops[-1]
        trains = id(loop) in loop_backward
        if not trains and not _DATA_ITER.search(a.segment(getattr(loop, "iter", loop))) \
                and not _evaluation_function(a, ctx.unit) and not _after_eval(a, ctx, loop, loop_backward):
            continue  # summing per-head losses in a small loop is how losses are built, not a leak
        if not _carried_over(ctx, key, loop, node):
            continue
        kind = _graph_value(a, value, ctx, loop, loop_backward.get(id(loop), set()))
        if kind is None:
            continue
        if reach is None:
            reach = names_reaching_backward(a)
        if key in reach:
            continue
        _report(r, a, node, key, value, ctx, trains)
    for node, key, value, ctx in _kept_by_a_method(a):
        receivers = {n for _, recv, c in backward_calls(a) if c.unit is ctx.unit for n in names_in(recv)}
        if _graph_value(a, value, ctx, None, receivers) is None:
            continue
        if reach is None:
            reach = names_reaching_backward(a)
        if key not in reach:
            _report(r, a, node, key, value, ctx, True)


def _kept_by_a_method(a: FileAnalysis) -> list[tuple[ast.AST, str, ast.expr, Ctx]]:
    """`self.running += loss`, `self.history.append(loss)` in a method (outside its own loops) that every
    call of the file runs once per iteration of a loop, with gradient recording on: the attribute
    outlives the call, so each call's graph is kept. Not when the method resets the attribute first."""
    out = []
    for aug, ctx in a.augassigns:
        if not ctx.loops and isinstance(aug.op, ast.Add) and ctx.grad_off is None:
            out.append((aug, dotted(aug.target), aug.value, ctx))
    for call, ctx in a.calls:
        if not ctx.loops and ctx.grad_off is None and call_name(call) == "append" and len(call.args) == 1 \
                and isinstance(call.func, ast.Attribute):
            out.append((call, dotted(call.func.value), call.args[0], ctx))
    kept = []
    for node, key, value, ctx in out:
        if not key or not key.startswith("self.") or key.count(".") != 1:
            continue
        if any(b.line <= node.lineno for b in ctx.unit.bindings.get(key, ())):
            continue  # `self.total = 0.0` earlier in the same call: what was kept before is let go
        sites = call_sites(a, ctx.unit.node) if isinstance(ctx.unit.node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        if sites and all(site.loops and site.grad_off is None for _, site in sites):
            kept.append((node, key, value, ctx))
    return kept


_EVAL_FUNCTION = re.compile(r"^(?:eval|evaluate|evaluation|validate|validation|valid|val)(?:_|$)", re.I)


def _evaluation_function(a: FileAnalysis, unit) -> bool:
    """A function that evaluates: it runs no backward, and puts a model in eval mode or is named so.

    Its loop over batches (`for i in range(0, len(X), bs)`) keeps every batch's graph in what it collects.
    """
    node = unit.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if any(ctx.unit is unit for _, _, ctx in backward_calls(a)):
        return False
    return bool(_EVAL_FUNCTION.match(node.name)) or any(
        type(c) is ast.Call and type(c.func) is ast.Attribute and c.func.attr == "eval" and not c.args
        for c in ast.walk(node))


def _after_eval(a: FileAnalysis, ctx: Ctx, loop: ast.stmt, loop_backward: dict[int, set[str]]) -> bool:
    """An evaluation loop inside a block: it runs no backward, and the statements before it in the same
    block put a model in eval mode (`model.eval()`, then `for x, y in val: preds.append(model(x))`)
    with no `.train()` between. An eval mode set for a validation pass is no `no_grad`: the graph of
    every batch stays in what the loop collects."""
    if id(loop) in loop_backward or any(id(inner) in loop_backward for inner in ast.walk(loop)):
        return False
    parent = ctx.loops[-2] if len(ctx.loops) > 1 else ctx.unit.node
    for body in (getattr(parent, "body", []), getattr(parent, "orelse", [])):
        if loop not in body:
            continue
        mode = None
        for stmt in body[: body.index(loop)]:
            call = stmt.value if type(stmt) is ast.Expr else None
            if type(call) is ast.Call and type(call.func) is ast.Attribute and call.func.attr in ("eval", "train"):
                off = call.func.attr == "train" and call.args and type(call.args[0]) is ast.Constant \
                    and call.args[0].value is False  # `.train(False)` is eval mode
                mode = "eval" if off else call.func.attr
        return mode == "eval"
    return False


def _loops_training_through_helpers(a: FileAnalysis) -> list[ast.stmt]:
    """Loops that call a function or method of this file which runs backward (`loss = train_batch(x, y)`).

    Such a loop trains as surely as one that calls backward itself: what it accumulates
    from the helper's return lives across its iterations.
    """
    trainers = {id(ctx.unit.node) for _, _, ctx in backward_calls(a) if ctx.unit.node is not None}
    if not trainers:
        return []
    out = []
    for call, ctx in a.calls:
        if ctx.loops:
            callee = local_callee(a, call, ctx.unit)
            if callee is not None and id(callee) in trainers:
                out.extend(ctx.loops)
    return out


def _carried_over(ctx: Ctx, key: str, loop: ast.stmt, node: ast.AST) -> bool:
    """Whether `key` keeps its value from one iteration to the next: it is not reset on every pass before `node`.

    A reset inside an `if` (the usual "print every 100 batches, then start over")
    leaves every other iteration's graph in the accumulator.
    """
    if key.startswith("self."):
        return True
    bindings = ctx.unit.bindings.get(key, ())
    if not bindings:
        return False
    body = loop.body
    return not any(b.stmt in body and b.line < node.lineno for b in bindings)


def _report(r: Reporter, a: FileAnalysis, node: ast.AST, key: str, value: ast.expr, ctx: Ctx, trains: bool) -> None:
    shown = r.segment(value)
    if isinstance(node, ast.AugAssign):
        what = f"`{key} += {shown}` adds a tensor with autograd history to `{key}`"
        fix = None
        if isinstance(value, ast.Name) and _only_logged(a, ctx, key, node):
            fix = r.fix_for(value, f"{shown}.item()", f"accumulate `{shown}.item()`")
        whole = f"({shown})" if isinstance(value, (ast.BinOp, ast.UnaryOp)) else shown
        hint = f"Accumulate a number: `{key} += {whole}.item()` (or `{whole}.detach()`)."
    else:
        what = f"`{key}.append({shown})` keeps a tensor with autograd history in `{key}`"
        fix = None
        hint = f"Store `{shown}.detach()` (or `.item()`), or compute it under `torch.no_grad()` when evaluating."
    why = "every iteration's graph stays in memory" if trains else "this loop runs with gradient recording on, so every batch's graph stays in memory"
    r.add(CODE, f"{what}; {why} and memory grows step after step.", node, hint=hint, fix=fix)


def _only_logged(a: FileAnalysis, ctx: Ctx, key: str, aug: ast.AugAssign) -> bool:
    """`total` starts as a number and is only printed/logged: `.item()` there changes nothing else."""
    bindings = ctx.unit.bindings.get(key, ())
    if not bindings or not all(isinstance(b.value, ast.Constant) and isinstance(b.value.value, (int, float)) for b in bindings):
        return False
    unit_node = ctx.unit.node
    parents: dict[int, ast.AST] = {}
    for parent in ast.walk(unit_node):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    for node in ast.walk(unit_node):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and dotted(node) == key:
            if parents.get(id(node)) is aug:
                continue
            if not _in_logging(node, parents):
                return False
    return True


def _in_logging(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    cur = parents.get(id(node))
    while cur is not None and not isinstance(cur, ast.stmt):
        if isinstance(cur, ast.JoinedStr):
            return True
        if isinstance(cur, ast.Call) and call_name(cur) in _LOGGING:
            return True
        if not isinstance(cur, (ast.BinOp, ast.Call, ast.FormattedValue, ast.keyword, ast.Tuple, ast.Dict)):
            return False
        cur = parents.get(id(cur))
    return False
