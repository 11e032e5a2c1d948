"""GD103: backward on a per-sample loss (`reduction='none'`) without `gradient=`."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import dotted, keyword
from graddoctor.lint.analysis.constants import constant, live_returns
from graddoctor.lint.analysis.returns import local_callee, module_forward, passed_to
from graddoctor.lint.analysis.values import backward_calls, binding_of, carries_graph, is_loss_call, is_model_call, item_of
from graddoctor.lint.reporter import Reporter

CODE = "GD103"
_PASS_THROUGH = frozenset({"to", "float", "double", "cuda", "cpu", "view", "reshape", "squeeze", "contiguous"})


_ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def _is_none(a: FileAnalysis, unit, value: ast.expr | None, line: int) -> bool:
    """`reduction="none"`, also through names, constructor arguments and config fields (`cfg.reduction`)."""
    return value is not None and constant(a, unit, value, line) == "none"


def _per_sample(a: FileAnalysis, call: ast.Call, unit, line: int) -> bool:
    if not is_loss_call(a, call):
        return False
    if _is_none(a, unit, keyword(call, "reduction"), line):
        return True
    key = dotted(call.func)
    made = a.names.call.get(key) if key else None
    if made is None:
        return False
    where = _unit_building(a, made)
    return where is not None and _is_none(a, where, keyword(made, "reduction"), made.lineno)


def _unit_building(a: FileAnalysis, made: ast.Call):
    """The unit whose assignment builds `made` (`self.criterion = nn.CrossEntropyLoss(...)` in `__init__`)."""
    for unit in a.units:
        for bindings in unit.bindings.values():
            if any(b.value is made for b in bindings):
                return unit
    return None


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


def _batches_of_one(a: FileAnalysis) -> bool:
    """`state.unsqueeze(0)`, `x[None]`, `obs.view(1, -1)`: the file makes batches of one sample (an agent acting on
    one state), where a reduction over the later dimensions leaves one value, which backward accepts."""
    cached = a.__dict__.get("_gd103_batches_of_one")
    if cached is None:
        cached = False
        for call, _ in a.calls:
            func, first = call.func, call.args[0] if call.args else None
            if type(func) is ast.Attribute and type(first) is ast.Constant and (
                    func.attr == "unsqueeze" and first.value == 0 or func.attr in ("view", "reshape") and first.value == 1):
                cached = True
                break
        if not cached:
            cached = any(type(n) is ast.Subscript and (type(n.slice) is ast.Constant and n.slice.value is None or
                         type(n.slice) is ast.Tuple and n.slice.elts and type(n.slice.elts[0]) is ast.Constant
                         and n.slice.elts[0].value is None) for n in ast.walk(a.tree))
        a.__dict__["_gd103_batches_of_one"] = cached
    return cached


def _model_values(a: FileAnalysis, unit, expr: ast.expr, line: int) -> bool:
    """Whether `expr` reads a model's output (`torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)` of a VAE's
    outputs): itself, or a parameter of its function that every call site of this file gives such a value. Then a
    reduction over the dimensions after the first leaves one value per sample of the batch."""
    if carries_graph(a, unit, expr, line):
        return True
    for name in {n.id for n in ast.walk(expr) if type(n) is ast.Name}:
        if a.binding_before(unit, name, line) is not None:
            continue
        passed = passed_to(a, unit, name)
        if passed and all(carries_graph(a, caller, value, at) or _unpacked_model_output(a, caller, value, at)
                          for value, at, caller in passed):
            return True
    return False


def _unpacked_model_output(a: FileAnalysis, unit, value: ast.expr, line: int) -> bool:
    """`recon, mu, logvar = model(x)`: a name unpacked from what a model call returns."""
    if type(value) is not ast.Name:
        return False
    b = a.binding_before(unit, value.id, line)
    return b is not None and type(b.stmt) is ast.Assign and type(b.stmt.value) is ast.Call \
        and any(type(t) is ast.Tuple for t in b.stmt.targets) and is_model_call(a, b.stmt.value)


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
    if "none" not in a.source and "sum(" not in a.source and "mean(" not in a.source:
        return
    for call, recv, ctx in backward_calls(a):
        if _gradient_given(call, recv):
            continue  # backward(gradient=...) handles non-scalar outputs
        budget: list = [24]
        line = _per_sample_at(a, recv, call.lineno, ctx.unit, budget)
        if line is not None:
            made = (f"`{r.segment(budget[-1])}` reduces only the dimensions after the batch's (line {line}), so it "
                    "keeps one value per sample" if len(budget) > 1 and budget[-1].lineno == line
                    else f"a per-sample loss made with reduction='none' (line {line})")
            r.add(
                CODE,
                f"backward() is called on `{r.segment(recv)}`, {made}; backward needs a scalar.",
                call,
                related=[r.related(line, "the per-sample loss is made here")],
                hint=f"Reduce it first: `{r.segment(recv)}.mean().backward()` (or pass `gradient=`).",
            )


def _per_sample_at(a: FileAnalysis, expr: ast.expr, line: int, unit, budget: list[int]) -> int | None:
    """The line of the per-sample loss (`reduction='none'`) that `expr` still holds one value per sample of,
    followed back through names, elementwise arithmetic, selections and this file's helpers and loss
    modules (every return a known configuration leaves must be per-sample); None when not surely so."""
    budget[0] -= 1
    if budget[0] < 0:
        return None
    if isinstance(expr, ast.Call) and _per_sample(a, expr, unit, line):
        return line
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _PASS_THROUGH:
        return _per_sample_at(a, expr.func.value, line, unit, budget)
    if isinstance(expr, ast.Call) and _keeps_batch(expr):  # `.sum(dim=1)`: still one value per sample
        operand = _torch_operand(expr)
        if operand is None:
            return None
        found = _per_sample_at(a, operand, line, unit, budget)
        if found is None and not _batches_of_one(a) and _model_values(a, unit, operand, line):
            budget.append(expr)  # the origin is this reduction, not a `reduction='none'`
            return expr.lineno
        return found
    if isinstance(expr, ast.UnaryOp) and type(expr.op) is ast.USub:  # `-0.5 * kl`, `-log_probs`
        return _per_sample_at(a, expr.operand, line, unit, budget)
    if isinstance(expr, ast.Subscript) and _selects(a, unit, expr, line):  # `per[per > 0]`: some of them
        return _per_sample_at(a, expr.value, line, unit, budget)
    if isinstance(expr, ast.BinOp) and type(expr.op) in _ELEMENTWISE:  # `losses * weights`: still per sample
        for side in (expr.left, expr.right):
            found = _per_sample_at(a, side, line, unit, budget)
            if found is not None:
                return found
        return None
    if isinstance(expr, (ast.Name, ast.Attribute)) and dotted(expr):
        b = binding_of(a, unit, dotted(expr), expr, line)  # `x = x * mask`: the `x` before
        if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
            return _per_sample_at(a, b.value, b.line, unit, budget)
        return None
    if isinstance(expr, ast.Subscript):  # `out["loss"]` of a helper's dict
        item = item_of(a, unit, expr, line)
        return _per_sample_at(a, item[0], item[1], item[2], budget) if item is not None else None
    if isinstance(expr, ast.Call):
        function = local_callee(a, expr, unit)
        if function is None:
            function = module_forward(a, expr)  # `self.criterion(logits, y)`, a loss module of this file
        inner = a.method_unit(function) if function is not None else None
        rets = live_returns(a, function) if inner is not None else []
        found = None
        for ret in rets:  # what the call gives is one of the returns the configuration leaves: each must be
            at = _per_sample_at(a, ret.value, ret.lineno, inner, budget)
            if at is None:
                return None
            found = found or at
        return found
    return None
