"""GD101: backward on a Python number, or a loss rebuilt from numbers (`.item()`, `float()`, numpy...)."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.analysis.numbers import (
    REWRAPS, accumulated_number, conversion, numbers_in, prediction_round_trip, without_graph,
)
from graddoctor.lint.analysis.returns import returned_value
from graddoctor.lint.analysis.values import (
    backward_calls, carries_graph, chain, is_loss_call, step_into, unpacked_at,
)
from graddoctor.lint.reporter import Reporter

CODE = "GD101"
__all__ = ["CODE", "REWRAPS", "check", "conversion"]  # GD102 reads the conversions from here


def _numbers_only(expr: ast.expr) -> ast.Call | None:
    """The first conversion in arithmetic made only of conversions and constants, else None."""
    if isinstance(expr, ast.BinOp):
        left, right = _numbers_only(expr.left), _numbers_only(expr.right)
        left_ok = left is not None or isinstance(expr.left, ast.Constant)
        right_ok = right is not None or isinstance(expr.right, ast.Constant)
        return (left or right) if left_ok and right_ok else None
    return conversion(expr)


def check(a: FileAnalysis, r: Reporter) -> None:
    if not any(word in a.source for word in ("item(", "float(", "tolist(", "numpy(", "int(")):
        return
    for call, recv, ctx in backward_calls(a):
        unpack = None
        past_loss = False
        for expr, line, unit in chain(a, ctx.unit, recv, call.lineno, 8):
            unpack = unpack or _swapped_unpack(a, unit, expr, line)
            conv = conversion(expr) or _numbers_only(expr) or accumulated_number(a, unit, expr, line) \
                or _summed_loss_numbers(a, unit, expr, line)
            if conv is None and isinstance(expr, ast.Call) and call_name(expr) in REWRAPS and expr.args:
                conv = numbers_in(a, unit, expr.args[0], line, carries_graph)
            if conv is None:
                conv = _rewrapped_inside(a, unit, expr, line)
            if conv is not None:
                if not prediction_round_trip(conv, past_loss):  # GD102's (see there)
                    _report(r, conv, call, recv, expr is recv, unpack)
                break
            past_loss = past_loss or (isinstance(expr, ast.Call) and is_loss_call(a, expr))
        else:
            if not past_loss and type(expr) is ast.BinOp:
                _number_term(a, r, call, unit, expr, line)


def _summed_loss_numbers(a: FileAnalysis, unit, expr: ast.expr, line: int) -> ast.Call | None:
    """`sum(w[k] * float(v) for k, v in losses.items())` where `losses` is a dict of loss calls (built here, or
    returned by a helper of this file): each loss is turned into a number before the sum; that conversion."""
    if type(expr) is not ast.Call or dotted(expr.func) != "sum" or not expr.args:
        return None
    gen = expr.args[0]
    if type(gen) not in (ast.GeneratorExp, ast.ListComp) or len(gen.generators) != 1:
        return None
    comp = gen.generators[0]
    it, target = comp.iter, comp.target
    if type(it) is not ast.Call or type(it.func) is not ast.Attribute or it.args or it.func.attr not in ("items", "values"):
        return None
    if it.func.attr == "items":
        target = target.elts[1] if type(target) is ast.Tuple and len(target.elts) == 2 else None
    if type(target) is not ast.Name or type(it.func.value) is not ast.Name:
        return None
    conv = next((n for n in ast.walk(gen.elt) if conversion(n) is not None and type(_converted(n)) is ast.Name
                 and _converted(n).id == target.id), None)
    b = a.binding_before(unit, it.func.value.id, line) if conv is not None else None
    if b is None or type(b.stmt) is not ast.Assign or b.value is not b.stmt.value:
        return None
    value = b.value
    if type(value) is ast.Call and not is_loss_call(a, value):
        found = returned_value(a, value, unit)
        value = found[0] if found is not None else None
    if type(value) is not ast.Dict or not value.values \
            or not all(type(v) is ast.Call and is_loss_call(a, v) for v in value.values):
        return None
    return conv


def _converted(conv: ast.Call) -> ast.expr:
    """The tensor `float(t)` / `t.item()` converts."""
    return conv.func.value if type(conv.func) is ast.Attribute else conv.args[0]


def _terms(expr: ast.expr) -> list[ast.expr]:
    """The terms of a sum: `alpha * soft + (1 - alpha) * hard - beta * kl` gives its three products."""
    if type(expr) is ast.BinOp and type(expr.op) in (ast.Add, ast.Sub):
        return _terms(expr.left) + _terms(expr.right)
    return [expr]


def _number_term(a: FileAnalysis, r: Reporter, backward: ast.Call, unit, expr: ast.BinOp, line: int) -> None:
    """`loss = alpha * soft + (1 - alpha) * hard` where `soft` is a number made by `.item()` (a helper
    returned `kl.item() * T ** 2`), while another term keeps a graph: that term adds a constant, so it
    changes no gradient, whatever tensor it was converted from; only the other terms train. A number
    that only weights a term (`confidence * soft`) is no term of its own.
    """
    terms = _terms(expr)
    if len(terms) < 2:
        return
    graph = [t for t in terms if carries_graph(a, unit, t, line)]
    if not graph:
        return
    for term in terms:
        if term in graph or not without_graph(a, unit, term, line):
            continue
        conv = _conversion_in(a, unit, term, line)
        if conv is not None:
            _report(r, conv, backward, term, False, term=r.segment(term))
            return


def _conversion_in(a: FileAnalysis, unit, term: ast.expr, line: int) -> ast.Call | None:
    """The conversion a term's value is made from: in it, behind its names, or in what a helper it calls returns."""
    conv = numbers_in(a, unit, term, line)
    if conv is not None:
        return conv
    for call in ast.walk(term):
        found = returned_value(a, call, unit) if type(call) is ast.Call else None
        if found is not None:
            conv = numbers_in(a, found[2], found[0], found[1])
            if conv is not None:
                return conv
    return None


def _rewrapped_inside(a: FileAnalysis, unit, expr: ast.expr, line: int) -> ast.Call | None:
    """`-(torch.tensor(log_probs) * returns).sum()`: numbers re-wrapped inside a loss that has no graph at all.

    Only when the whole expression surely has no history (`without_graph`): a re-wrap
    that weights a loss with a graph (`torch.tensor(weights) * criterion(out, y)`) is correct.
    """
    if type(expr) not in (ast.BinOp, ast.UnaryOp, ast.Call):
        return None
    inner = [(c, line, unit) for c in ast.walk(expr)
             if type(c) is ast.Call and c is not expr and call_name(c) in REWRAPS and c.args]
    # `advantage = returns - values` where `values = torch.tensor(values)` was filled with
    # `.item()`s: the re-wrap is a name's value, not written inside the expression
    inner += [found for name in ast.walk(expr) if type(name) is ast.Name
              for found in [_rewrap_behind(a, unit, name, line)] if found is not None]
    if not inner or not _graphless(a, unit, expr, line):
        return None
    for call, at, where in inner:
        conv = numbers_in(a, where, call.args[0], at, carries_graph)
        if conv is not None:
            return conv
    return None


def _graphless(a: FileAnalysis, unit, expr: ast.expr, line: int) -> bool:
    """`without_graph`, where a re-wrap written inline with `requires_grad=True` also counts as no graph:
    `-(torch.tensor(lp, requires_grad=True) * returns).sum()` makes a temporary leaf that no optimizer
    holds, so the gradient it receives is thrown away. A named leaf (`temperature = torch.tensor(t0,
    requires_grad=True)`, then handed to an optimizer) is not judged here.
    """
    kind = type(expr)
    if kind is ast.Call and call_name(expr) in REWRAPS and expr.args:
        return True
    if kind is ast.BinOp:
        return _graphless(a, unit, expr.left, line) and _graphless(a, unit, expr.right, line)
    if kind is ast.UnaryOp:
        return _graphless(a, unit, expr.operand, line)
    if kind is ast.Call and type(expr.func) is ast.Attribute and type(expr.func.value) is not ast.Name:
        return _graphless(a, unit, expr.func.value, line) and all(
            without_graph(a, unit, x, line) for x in expr.args)  # `(...).sum()`, `(...).mean(0)`
    return without_graph(a, unit, expr, line)


def _rewrap_behind(a: FileAnalysis, unit, name: ast.Name, line: int):
    """The `torch.tensor(numbers)` call a name's value goes back to through neutral steps, if any."""
    for expr, at, where in chain(a, unit, name, line, 6):
        if type(expr) is ast.Call and call_name(expr) in REWRAPS and expr.args:
            return expr, at, where
    return None


def _swapped_unpack(a: FileAnalysis, unit, expr: ast.expr, line: int) -> ast.Assign | None:
    """The unpacking that gave `expr` a number while another item of the same tuple is a tensor with a graph."""
    stmt = unpacked_at(a, unit, expr, line)
    if stmt is None:
        return None
    whole = returned_value(a, stmt.value, unit)
    if whole is None or type(whole[0]) is not ast.Tuple:
        return None
    value, ret_line, inner = whole
    mine = step_into(a, unit, expr, line)
    others = [e for e in value.elts if mine is None or e is not mine[0]]
    return stmt if any(carries_graph(a, inner, e, ret_line) for e in others) else None


def _report(
    r: Reporter, conv: ast.Call, backward: ast.Call, recv: ast.expr, direct: bool, unpack: ast.Assign | None = None,
    term: str | None = None,
) -> None:
    what = r.segment(conv)
    number = {"numpy": "a numpy array", "tolist": "a Python list"}.get(call_name(conv), "a Python number")
    inner = conv.func.value if isinstance(conv.func, ast.Attribute) else conv.args[0]
    tensor = r.segment(inner)
    fix = None
    if direct and conv is recv:
        fix = r.fix_for(conv, tensor, f"call backward on `{tensor}` itself")
        message = f"`{what}` is a Python number, so `.backward()` on it fails: it has no autograd graph."
    else:
        message = (
            f"The loss passed to backward (line {backward.lineno}) is built from `{what}`, {number} "
            "without autograd history, so no gradient reaches the model."
        )
    if term is not None:
        message = (
            f"The term `{term}` of the loss passed to backward (line {backward.lineno}) is built from `{what}`, "
            f"{number} without autograd history: it adds a constant, so this part of the loss gives no gradient "
            "and only the other terms train the model."
        )
    related = [r.related(backward.lineno, "backward is called here")]
    hint = f"Keep `{tensor}` as a tensor for the loss and call `backward()` on it; use `.item()` only for logging."
    if unpack is not None:
        # `loss, value = compute(...)` where compute returns `(number, tensor)`: the order is the bug.
        targets = r.segment(unpack.targets[0])
        related.insert(0, r.related(unpack.lineno, f"`{targets}` unpacks the returned tuple here"))
        hint = (
            f"Check the order on line {unpack.lineno}: `{targets}` takes the number where the tensor was meant; "
            "unpack in the order the function returns its values."
        )
    r.add(CODE, message, conv, related=related, hint=hint, fix=fix)
