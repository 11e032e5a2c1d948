"""GD103: backward on a per-sample loss (`reduction='none'`) without `gradient=`."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import dotted, keyword
from graddoctor.lint.analysis.returns import returned_value
from graddoctor.lint.analysis.values import backward_calls, binding_of, is_loss_call, item_of
from graddoctor.lint.reporter import Reporter

CODE = "GD103"
_PASS_THROUGH = frozenset({"to", "float", "double", "cuda", "cpu", "view", "reshape", "squeeze", "contiguous"})


_ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def _is_none(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and value.value == "none"


def _per_sample(a: FileAnalysis, call: ast.Call) -> bool:
    if not is_loss_call(a, call):
        return False
    if _is_none(keyword(call, "reduction")):
        return True
    key = dotted(call.func)
    made = a.names.call.get(key) if key else None
    return made is not None and _is_none(keyword(made, "reduction"))


def _keeps_batch(call: ast.Call) -> bool:
    """`x.sum(dim=1)`, `x.mean((1, 2))`, `torch.sum(x, dim=1)`: a reduction over dimensions after the
    first only, which leaves one value per sample (dimension 0 stays; -1 could be dimension 0)."""
    func = call.func
    if type(func) is not ast.Attribute or func.attr not in ("sum", "mean"):
        return False
    args = call.args[1:] if dotted(func.value) == "torch" else call.args
    dim = keyword(call, "dim") or (args[0] if args else None)
    dims = dim.elts if isinstance(dim, (ast.Tuple, ast.List)) else [dim]
    return bool(dims) and all(type(d) is ast.Constant and type(d.value) is int and d.value >= 1 for d in dims)


def _selects(a: FileAnalysis, unit, expr: ast.Subscript, line: int) -> bool:
    """`per[per > 0]`, `per[mask]`, `per[:k]`, `per[idx]` with an index tensor: a selection of
    elements, still a tensor of many (a constant index, `out[0]`, picks one item instead)."""
    index = expr.slice
    if type(index) is ast.Slice or type(index) is ast.Compare:
        return True
    if type(index) is ast.Name:
        b = binding_of(a, unit, index.id, index, line)
        value = b.value if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) else None
        return type(value) is ast.Compare or (type(value) is ast.BoolOp)
    return False


def _torch_operand(call: ast.Call) -> ast.expr | None:
    """The tensor of `torch.sum(x, dim=1)`; for a method call, its receiver."""
    func = call.func
    if dotted(func.value) == "torch":
        return call.args[0] if call.args else None
    return func.value


def _gradient_given(call: ast.Call, recv: ast.expr) -> bool:
    """`loss.backward(g)`, `torch.autograd.backward(loss, g)`, `gradient=`: a vector-Jacobian product,
    fine on a non-scalar. A wrapper that receives the loss (`accelerator.backward(loss)`, a
    `backward_step(loss, optimizer)` helper of this file) passes no gradient by its other arguments."""
    func = call.func
    if type(func) is ast.Attribute and func.value is recv:
        return bool(call.args or call.keywords)  # `loss.backward(...)`: anything given may be the gradient
    if dotted(func) in ("torch.autograd.backward", "autograd.backward", "backward"):
        return len(call.args) > 1 or any(k.arg in ("grad_tensors", "gradient") for k in call.keywords)
    return any(k.arg in ("gradient", "grad_tensors") for k in call.keywords)


def check(a: FileAnalysis, r: Reporter) -> None:
    if "none" not in a.source:
        return
    for call, recv, ctx in backward_calls(a):
        if _gradient_given(call, recv):
            continue  # backward(gradient=...) handles non-scalar outputs
        todo = [(recv, call.lineno, ctx.unit)]
        for _ in range(12):
            if not todo:
                break
            expr, line, unit = todo.pop()
            if isinstance(expr, ast.Call) and _per_sample(a, expr):
                r.add(
                    CODE,
                    f"backward() is called on `{r.segment(recv)}`, a per-sample loss made with reduction='none' "
                    f"(line {line}); backward needs a scalar.",
                    call,
                    related=[r.related(line, "the per-sample loss is made here")],
                    hint=f"Reduce it first: `{r.segment(recv)}.mean().backward()` (or pass `gradient=`).",
                )
                break
            if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _PASS_THROUGH:
                todo.append((expr.func.value, line, unit))
            elif isinstance(expr, ast.Call) and _keeps_batch(expr):  # `.sum(dim=1)`: still one value per sample
                operand = _torch_operand(expr)
                if operand is not None:
                    todo.append((operand, line, unit))
            elif isinstance(expr, ast.Subscript) and _selects(a, unit, expr, line):  # `per[per > 0]`: some of them
                todo.append((expr.value, line, unit))
            elif isinstance(expr, ast.BinOp) and type(expr.op) in _ELEMENTWISE:  # `losses * weights`: still per sample
                todo += [(expr.right, line, unit), (expr.left, line, unit)]
            elif isinstance(expr, (ast.Name, ast.Attribute)) and dotted(expr):
                b = binding_of(a, unit, dotted(expr), expr, line)  # `x = x * mask`: the `x` before
                if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
                    todo.append((b.value, b.line, unit))
            elif isinstance(expr, ast.Subscript):  # `out["loss"]` of a helper's dict
                item = item_of(a, unit, expr, line)
                if item is not None:
                    todo.append(item)
            elif isinstance(expr, ast.Call):
                inner = returned_value(a, expr, unit)
                if inner is not None:
                    todo.append(inner)
