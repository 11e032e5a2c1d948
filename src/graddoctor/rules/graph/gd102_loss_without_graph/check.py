"""GD102: the loss passed to backward was cut from the graph (`detach()`, `.data`, a re-wrap, argmax...)."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.analysis.numbers import REWRAPS, causes_without_graph, numbers_in, prediction_round_trip
from graddoctor.lint.analysis.returns import argument, passed_to, returned
from graddoctor.lint.analysis.values import (
    backward_calls, carries_graph, chain, is_loss_call, made_from_model, names_in, step_into, surely_data,
)
from graddoctor.lint.reporter import Reporter

CODE = "GD102"
CUTS = {
    "detach": "`detach()` returns a tensor without autograd history",
    "argmax": "argmax returns integer indices, which have no gradient",
    "argmin": "argmin returns integer indices, which have no gradient",
    "argsort": "argsort returns integer indices (ranks), which have no gradient",
    "round": "rounding has a zero gradient everywhere and ends the graph",
    "long": "an integer cast ends the graph",
    "int": "an integer cast ends the graph",
    "bool": "a bool cast ends the graph",
    "sign": "sign has a zero gradient everywhere",
}


_FUNCTION_CUTS = frozenset({"argmax", "argmin", "argsort", "round", "sign"})


def cut_reason(a: FileAnalysis, unit, expr: ast.expr, line: int,
               past_loss_call: bool = False) -> tuple[ast.AST, ast.expr, str] | None:
    """(the cut, the tensor it cuts, why) when `expr` ends the graph.

    `past_loss_call`: the chain from backward() already went through a loss function, so
    `expr` is what the loss function was given (the prediction), not the loss itself.
    """
    if isinstance(expr, ast.Attribute) and expr.attr == "data":
        return expr, expr.value, "`.data` is a view without autograd history"
    if isinstance(expr, ast.Compare):
        return expr, expr.left, "a comparison returns a bool tensor without gradient"
    if isinstance(expr, ast.Call):
        name = call_name(expr)
        func = expr.func
        if isinstance(func, ast.Attribute) and name in CUTS and dotted(func.value) != "torch":
            return expr, func.value, CUTS[name]
        if name in _FUNCTION_CUTS and expr.args and (dotted(func) in ("round", f"torch.{name}")):
            return expr, expr.args[0], CUTS[name]  # torch.argmax(logits, 1), round(p)
        if name in REWRAPS and expr.args:
            numbers = numbers_in(a, unit, expr.args[0], line)
            if numbers is None:
                return expr, expr.args[0], f"`{name}(...)` copies the values into a new tensor without history"
            if prediction_round_trip(numbers, past_loss_call):
                source = numbers.func.value  # type: ignore[union-attr]
                while (isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute)
                       and source.func.attr in ("detach", "cpu", "clone", "contiguous")):
                    source = source.func.value  # `out.detach().cpu().numpy()`: the tensor is `out`
                return numbers, source, (
                    f"a numpy round trip: `.numpy()` copies the values out of autograd and `{name}(...)` "
                    "(line {}) makes a new tensor of them without history".format(expr.lineno))
    return None


def check(a: FileAnalysis, r: Reporter) -> None:
    for call, recv, ctx in backward_calls(a):
        before = len(r.results)
        _judge_backward(a, r, call, recv, ctx)
        if len(r.results) == before:
            _cut_throughout(a, r, call, recv, ctx)


def _cut_throughout(a: FileAnalysis, r: Reporter, call: ast.Call, recv: ast.expr, ctx) -> None:
    """Every part of the loss is without history (numbers.without_graph, through this file's helpers,
    methods and their parameters: `torch.cat([edge_scores(z, pos), ...])` where `z` came back from a
    numpy round trip), and a part of it is a cut of a value with a graph: report that cut. A part
    computed with recording off is GD110's; numbers from `.item()` are GD101's."""
    if not any(w in a.source for w in ("detach", "data", "argmax", "argmin", "argsort")) \
            and not any(w in a.source for w in REWRAPS):
        return
    why = causes_without_graph(a, ctx.unit, recv, call.lineno)
    found = _first_cut(a, why)
    if found is not None:
        _report(r, call, found[0], found[1])


def cut_with_graph(a: FileAnalysis, why) -> tuple[ast.AST, str] | None:
    """The first cut, among the causes of a loss without graph, of a value that had one (whatever else lost
    its history with recording off): GD102's to report, so GD110 leaves that loss to it."""
    return _first_cut(a, why, off_allowed=True)


def _first_cut(a: FileAnalysis, why, off_allowed: bool = False) -> tuple[ast.AST, str] | None:
    """The first cut, among the causes of a value without graph, of an operand that had one. A part computed
    with recording off is GD110's, unless `off_allowed` (a loss module's second input, such as the
    teacher's logits of a distillation loss, made under `no_grad` on purpose)."""
    if why is None or not off_allowed and any(c.kind == "grad_off" for c in why):
        return None
    for cause in why:
        if cause.kind not in ("cut", "rewrap"):
            continue
        found = cut_reason(a, cause.unit, cause.node, cause.line, past_loss_call=True)
        if found is None:
            continue
        node, operand, reason = found
        for _ in range(3):  # `s.argsort().argsort()` (ranks): the cut of a cut; the inner one meets the graph
            inner = cut_reason(a, cause.unit, operand, cause.line, past_loss_call=True)
            if inner is None:
                break
            node, operand, reason = inner
        if carries_graph(a, cause.unit, operand, cause.line) or _parameter_with_graph(a, cause.unit, operand, cause.line):
            return node, reason
    return None


def _parameter_with_graph(a: FileAnalysis, unit, operand: ast.expr, line: int) -> bool:
    """`operand` reads a parameter of its function (not reassigned before `line`) that the call the chain
    came through passes a value with a graph: `F.log_softmax(student_logits / self.t)` in a loss module's
    forward, called as `self.criterion(self.student(x), t_logits)`."""
    for name in names_in(operand):
        if a.binding_before(unit, name, line) is not None:
            continue
        given = argument(a, unit, name)
        if given is not None and carries_graph(a, given[2], given[0], given[1]):
            return True
        # `to_ranks(pred)` and `to_ranks(target)`: one function cut for both; a call site passing a graph counts
        if any(carries_graph(a, caller, value, at) for value, at, caller in passed_to(a, unit, name)):
            return True
    return False


def _judge_backward(a: FileAnalysis, r: Reporter, call: ast.Call, recv: ast.expr, ctx) -> None:
    past_loss = False
    last = None
    modules = []  # calls of a module of a class of this file met on the way (`self.criterion(pred, y)`)
    for expr, line, unit in chain(a, ctx.unit, recv, call.lineno):
        last = (expr, line, unit)
        found = cut_reason(a, unit, expr, line, past_loss)
        past_loss = past_loss or (isinstance(expr, ast.Call) and is_loss_call(a, expr))
        if isinstance(expr, ast.Call):
            modules.append((expr, line, unit))
        if found is None:
            continue
        node, operand, why = found
        if carries_graph(a, unit, operand, line - 1):  # what the name held before this line
            _report(r, call, node, why)
        return
    if last is None or _every_side_cut(a, r, call, *last) or _every_summand_cut(a, r, call, *last):
        return
    # the chain goes on past a loss module's call to its prediction (`self.criterion(self.model(x), y)`
    # is followed into `self.model(x)`): the loss module's own forward is the first place to look
    for expr, line, unit in modules:
        if _inside_loss_module(a, r, call, expr, line, unit):
            return


def _every_side_cut(a: FileAnalysis, r: Reporter, backward: ast.Call, expr: ast.expr, line: int, unit) -> bool:
    """`loss_fn(p1, z2) + loss_fn(p2, z1)` where each term is cut (or plain data): the sum has no graph either.

    Followed into nested arithmetic (`overlap / (p.sum(1) + t.sum(1) + 1)` inside a Dice helper,
    where both sides come from the same thresholded prediction).
    """
    if type(expr) is not ast.BinOp:
        return False
    status, cut = _sides(a, unit, expr, line, 0)
    if status != "cut":
        return False
    _report(r, backward, cut[0], cut[2])
    return True


_SIDE_DEPTH = 3


def _every_summand_cut(a: FileAnalysis, r: Reporter, backward: ast.Call, expr: ast.expr, line: int, unit) -> bool:
    """`sum(loss for loss in loss_dict.values())`, `sum(losses.values())`, `sum([l1, l2])` where every value
    summed is cut (or plain data): the values of the dict or list literal the container comes from, judged
    one by one like the sides of a `+`."""
    if type(expr) is not ast.Call or dotted(expr.func) != "sum" or len(expr.args) != 1:
        return False
    summands = _summands(a, unit, expr.args[0], line)
    if not summands:
        return False
    first = None
    for value, at, where in summands:
        status, cut = _side(a, where, value, at, 0)
        if status == "open":
            return False
        first = first or cut
    if first is None:
        return False
    _report(r, backward, first[0], first[2])
    return True


def _summands(a: FileAnalysis, unit, arg: ast.expr, line: int) -> list:
    """The values `sum(arg)` adds, where a dict or list literal shows them; else []."""
    if type(arg) in (ast.GeneratorExp, ast.ListComp):
        gen = arg.generators[0] if len(arg.generators) == 1 else None
        if gen is None or gen.ifs or type(gen.target) is not ast.Name or dotted(arg.elt) != gen.target.id:
            return []
        arg = gen.iter  # `sum(l for l in d.values())` sums what it iterates
    values = type(arg) is ast.Call and type(arg.func) is ast.Attribute and arg.func.attr == "values" and not arg.args
    container = arg.func.value if values else arg
    for _ in range(8):
        kind = type(container)
        if kind is ast.Dict and values:
            return [(v, line, unit) for v in container.values if v is not None]
        if kind in (ast.List, ast.Tuple) and not values:
            return [(v, line, unit) for v in container.elts if type(v) is not ast.Starred]
        nxt = step_into(a, unit, container, line)
        if nxt is None:
            return []
        container, line, unit = nxt
    return []


def _sides(a: FileAnalysis, unit, expr: ast.BinOp, line: int, depth: int):
    """("cut", first cut) when every operand is cut or plain data and one is cut; ("data", None) when all
    are data; ("open", None) when some operand may carry the graph."""
    first = None
    for side in (expr.left, expr.right):
        status, cut = _side(a, unit, side, line, depth)
        if status == "open":
            return "open", None
        first = first or cut
    return ("cut", first) if first is not None else ("data", None)


def _side(a: FileAnalysis, unit, side: ast.expr, line: int, depth: int):
    if surely_data(a, unit, side, line):
        return "data", None
    past_loss = False
    last = None
    for sub, sub_line, sub_unit in chain(a, unit, side, line):
        last = (sub, sub_line, sub_unit)
        cut = cut_reason(a, sub_unit, sub, sub_line, past_loss)
        past_loss = past_loss or (isinstance(sub, ast.Call) and is_loss_call(a, sub))
        if cut is not None:
            graph = carries_graph(a, sub_unit, cut[1], sub_line - 1) or made_from_model(a, sub_unit, cut[1], sub_line)
            return ("cut", cut) if graph else ("open", None)
    sub, sub_line, sub_unit = last
    if sub is not side and surely_data(a, sub_unit, sub, sub_line):
        return "data", None
    if type(sub) is ast.BinOp and depth < _SIDE_DEPTH:
        return _sides(a, sub_unit, sub, sub_line, depth + 1)
    return "open", None


def _report(r: Reporter, backward: ast.Call, node: ast.AST, why: str, extra: list | None = None) -> None:
    r.add(
        CODE,
        f"The loss passed to backward (line {backward.lineno}) has no graph: `{r.segment(node)}` cuts it; {why}.",
        node,
        related=(extra or []) + [r.related(backward.lineno, "backward is called here")],
        hint=_hint(node),
    )


def _inside_loss_module(a: FileAnalysis, r: Reporter, backward: ast.Call, expr: ast.expr, line: int, unit) -> bool:
    """The chain ended at `criterion(pred, y)` or `model(x)`, a module of a class of this file: look inside its `forward`.

    A cut there of one of forward's own parameters counts when the call site passes it a value with
    a graph (`criterion(model(x), y)`): a custom loss that round-trips its prediction through numpy.
    A cut of what the network's own layers made (`return score.round().clamp(0, 5)`) counts too.
    Every `return` of forward must be cut: one path that returns the continuous output
    (`if self.training: return logits`) keeps the graph.
    """
    if not isinstance(expr, ast.Call):
        return False
    key = dotted(expr.func)
    ctor = a.names.call.get(key) if key else None
    info = a.classes.get(call_name(ctor)) if isinstance(ctor, ast.Call) else None
    forward = info.methods.get("forward") if info is not None and info.is_module else None
    inner = a.method_unit(forward) if forward is not None else None
    if inner is None:
        return False
    rets = returned(a, forward)
    first = None
    for ret in rets:
        found = _cut_returned(a, forward, inner, ret, expr, unit, line)
        if found is None:
            first = None
            break
        first = first or found
    if first is None and rets:
        # no part of what forward returns keeps a graph (its parameters are what this call passes):
        # a cut of a value that had one inside it (`torch.sigmoid(logits).data`, a `torch.tensor(...)` re-wrap)
        a.__dict__.setdefault("_call_sites", {})[id(inner)] = (expr, unit)
        causes = [causes_without_graph(a, inner, ret.value, ret.lineno) for ret in rets]
        cuts = [_first_cut(a, why, off_allowed=True) for why in causes]
        first = cuts[0] if all(c is not None for c in cuts) else None
    if first is None:
        return False
    _report(r, backward, first[0], first[1], [r.related(expr.lineno, f"`{r.segment(expr.func)}(...)` is called here")])
    return True


def _cut_returned(a: FileAnalysis, forward, inner, ret: ast.Return, call: ast.Call, unit, line: int):
    """(the cut, why) on the way to what `ret` returns, of a value with a graph; None if there is none."""
    params = [p.arg for p in forward.args.args[1:]]  # without self
    returned_names = names_in(ret.value)
    # what forward returns, followed back; and the values of the names it returns from
    # (`pred = torch.tensor(arr)` ... `return ((pred - target) ** 2).mean()`)
    candidates = list(chain(a, inner, ret.value, ret.lineno))
    candidates += [(stmt.value, stmt.lineno, inner) for stmt in ast.walk(forward)
                   if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.lineno < ret.lineno
                   and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in returned_names]
    for sub, sub_line, sub_unit in candidates:
        found = cut_reason(a, sub_unit, sub, sub_line, past_loss_call=True)
        if found is None:
            continue
        node, operand, why = found
        name = operand.id if isinstance(operand, ast.Name) and sub_unit is inner else None
        cut_line = getattr(node, "lineno", sub_line)
        if name in params and all(b.line >= cut_line for b in inner.bindings.get(name, [])):
            position = params.index(name)  # forward's parameter: judged by what the call passes
            given = call.args[position] if position < len(call.args) else None
            graph = given is not None and carries_graph(a, unit, given, line)
        else:
            graph = carries_graph(a, sub_unit, operand, sub_line - 1) or (
                sub_unit is inner and made_from_model(a, inner, operand, cut_line))
        if graph:
            return node, why
    return None


_DISCRETE = frozenset({"argmax", "argmin", "argsort", "round", "sign", "long", "int", "bool"})


def _hint(cut: ast.AST) -> str:
    """The fix depends on the cut: a detach is dropped, a discrete value is replaced by the continuous one."""
    if isinstance(cut, ast.Compare) or (isinstance(cut, ast.Call) and call_name(cut) in _DISCRETE):
        return (
            "Compute the loss from the continuous output (logits or probabilities), e.g. "
            "`F.cross_entropy(logits, y)` or `F.binary_cross_entropy_with_logits(out, y)`; "
            "keep argmax/round/comparisons/integer casts for metrics."
        )
    return "Compute the loss from the model's output tensor directly; drop the `detach()`/`.data`/re-wrap on that path."
