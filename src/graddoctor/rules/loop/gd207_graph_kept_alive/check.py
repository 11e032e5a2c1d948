"""GD207: tensors with autograd history accumulated across loop iterations (`total += loss`, `.append(out)`)."""

from __future__ import annotations

import ast
import re

from graddoctor.lint.analysis.model import Ctx, FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.analysis.numbers import conversion, gives_number, is_number
from graddoctor.lint.analysis.reach import reached_with_grad
from graddoctor.lint.analysis.returns import argument, local_callee, returned_value, unpacked_index
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
        b = a.binding_before(ctx.unit, expr.id, getattr(expr, "lineno", 0))
        if expr.id in receivers:
            # `loss = criterion(out, y).item(); total += loss; loss = torch.tensor(loss, ...)`: the name
            # backward is called on holds a number here, given just above in the same block
            return None if _number_just_before(b, expr, loop) else "loss"
        if b is None or b.ctx.grad_off is not None or loop not in b.ctx.loops:
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


def _number_just_before(b, use: ast.expr, loop: ast.stmt) -> bool:
    """`b` turns a tensor into a number (`.item()`, `float()`) and runs before `use` in every iteration of
    `loop`: it stands earlier in the same block as the statement holding the use."""
    if b is None or not isinstance(b.stmt, ast.Assign) or conversion(b.value) is None or b.line >= use.lineno:
        return False
    for node in ast.walk(loop):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if type(block) is not list or b.stmt not in block:
                continue
            later = block[block.index(b.stmt) + 1:]
            return any(s.lineno <= use.lineno <= (s.end_lineno or s.lineno) for s in later)
    return False


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
    if not a.loops or not (a.augassigns or "append" in a.source or "extend" in a.source):
        return
    reach: set[str] | None = None
    loop_backward: dict[int, set[str]] = {}
    for call, recv, ctx in backward_calls(a):
        for loop in ctx.loops:
            loop_backward.setdefault(id(loop), set()).update(names_in(recv))
    for loop in _loops_training_through_helpers(a):
        loop_backward.setdefault(id(loop), set())
    candidates: list[tuple[ast.AST, str, ast.expr, Ctx, str]] = []
    for aug, ctx in a.augassigns:
        if ctx.grad_off is None and isinstance(aug.op, ast.Add):
            key = dotted(aug.target) or _container_key(aug.target)
            if key:
                candidates.append((aug, key, aug.value, ctx, r.segment(aug.target)))
    for call, ctx in a.calls:
        if (
            ctx.grad_off is None
            and call_name(call) in ("append", "extend")
            and isinstance(call.func, ast.Attribute)
            and len(call.args) == 1
            and not call.keywords
        ):
            key = dotted(call.func.value) or _container_key(call.func.value)
            if key:
                candidates.append((call, key, call.args[0], ctx, r.segment(call.func.value)))
    repeated: dict[int, bool] | None = None
    for node, key, value, ctx, shown in candidates:
        plain = type(node) is ast.AugAssign and dotted(node.target) is not None \
            or type(node) is ast.Call and dotted(node.func.value) is not None
        if ctx.loops:
            found = _accumulating_loop(a, ctx, key, node, loop_backward)
            if found is None:
                continue
            loop, why = found
            trains = why == "trains"
            kind = None
            if plain and (type(node) is ast.AugAssign or call_name(node) == "append"):
                kind = _graph_value(a, value, ctx, loop, loop_backward.get(id(loop), set()))
            if kind is None:
                # followed further (tensor ops, containers, helpers' tuples): only in a loop that trains,
                # or an evaluation this file runs with gradients on; a forward or a generation loop
                # building lists of tensors is how models are written, and callers elsewhere run it
                # under `no_grad`
                if why == "data" or (why == "eval" and id(ctx.unit) not in reached_with_grad(a)):
                    continue
                if not _with_graph(a, value, ctx.unit, node.lineno):
                    continue
        else:
            # a method that runs once per iteration of a loop elsewhere (`trainer.step(x)`), adding
            # to a container of the instance (`self.history["rec"].append(rec)`): it outlives the call
            if not key.startswith("self.") or ctx.unit.cls is None or ctx.unit.node is None:
                continue
            if repeated is None:
                repeated = _repeated_units(a, loop_backward)
            if not repeated.get(id(ctx.unit.node)) or _reset_outside_init(a, ctx.unit.cls, key):
                continue
            if not _with_graph(a, value, ctx.unit, node.lineno):
                continue
            trains = True
        if reach is None:
            reach = names_reaching_backward(a)
        if key in reach or (key.startswith("self.") and _attribute_reaches_backward(a, key, reach)):
            continue
        _report(r, a, node, key, value, ctx, trains, shown)


def _container_key(node: ast.expr) -> str | None:
    """`stats` for `stats[name]`, `self.history` for `self.history["rec"]`: the container an item belongs to."""
    if type(node) is not ast.Subscript:
        return None
    while type(node) is ast.Subscript:
        node = node.value
    return dotted(node)


def _accumulating_loop(a: FileAnalysis, ctx: Ctx, key: str, node: ast.AST, loop_backward: dict[int, set[str]]):
    """The innermost loop around `node` that iterates batches (it trains, walks a data iterable, or evaluates),
    when `key` keeps its value across that loop's iterations and those of every loop inside it; else None.

    `for batch in batches: ... for name, value in losses.items(): stats[name] += value` accumulates across
    batches although the innermost loop walks a dict.
    """
    inner: list[ast.stmt] = []
    for loop in reversed(ctx.loops):
        inner.append(loop)
        if id(loop) in loop_backward:
            why = "trains"
        elif _evaluation_function(a, ctx.unit) or _after_eval(a, _ctx_at(ctx, loop), loop, loop_backward):
            why = "eval"
        elif _DATA_ITER.search(a.segment(getattr(loop, "iter", loop))):
            why = "data"
        else:
            continue  # summing per-head losses in a small loop is how losses are built, not a leak
        if all(_carried_over(ctx, key, each, node) for each in inner):
            return loop, why
        return None
    return None


def _ctx_at(ctx: Ctx, loop: ast.stmt) -> Ctx:
    """`ctx` as seen by the statement `loop` itself: the loops around it, not it and those inside it."""
    return Ctx(ctx.unit, ctx.grad_off, ctx.loops[: ctx.loops.index(loop) + 1])


# Results without history whatever they are computed from: indices, comparisons, sizes.
_NO_HISTORY = frozenset(
    "item detach tolist numpy float int bool len str round argmax argmin argsort sign floor ceil eq ne gt lt ge le "
    "isnan isinf isfinite nonzero size dim numel count_nonzero bincount long short byte logical_not logical_and "
    "logical_or all any equal".split()
)
_KEEP_ITEMS = frozenset({"items", "values", "enumerate", "zip", "list", "tuple", "reversed", "sorted"})
_WITH_GRAPH_DEPTH = 12


def _with_graph(a: FileAnalysis, expr: ast.expr, unit, line: int, depth: int = 0) -> bool:
    """Whether `expr` surely holds a tensor with autograd history: a loss or a model's output made with
    gradients on, or what tensor ops, arithmetic, containers and this file's helpers make of one, with
    no `.item()`, `.detach()`, `float()` or index-like op (`argmax`, comparisons) on the way."""
    if depth > _WITH_GRAPH_DEPTH:
        return False
    kind = type(expr)
    if kind is ast.BinOp:
        return _with_graph(a, expr.left, unit, line, depth + 1) or _with_graph(a, expr.right, unit, line, depth + 1)
    if kind is ast.UnaryOp:
        return type(expr.op) is not ast.Not and _with_graph(a, expr.operand, unit, line, depth + 1)
    if kind in (ast.List, ast.Tuple):
        return any(_with_graph(a, e, unit, line, depth + 1) for e in expr.elts if type(e) is not ast.Starred)
    if kind is ast.Dict:
        return any(_with_graph(a, v, unit, line, depth + 1) for v in expr.values)
    if kind is ast.Subscript:
        return _with_graph(a, expr.value, unit, line, depth + 1)
    if kind is ast.Attribute:
        if expr.attr in _METADATA or type(expr.value) is not ast.Name or expr.value.id == "self":
            return False
        return _with_graph(a, expr.value, unit, line, depth + 1)
    if kind is ast.Name:
        return _name_with_graph(a, expr, unit, line, depth)
    if kind is ast.Call:
        return _call_with_graph(a, expr, unit, line, depth)
    return False


def _name_with_graph(a: FileAnalysis, expr: ast.Name, unit, line: int, depth: int) -> bool:
    b = a.binding_before(unit, expr.id, line)
    if b is None:  # a parameter of the helper the chain stepped into: what its call site passed
        passed = argument(a, unit, expr.id)
        # (A method that keeps what any caller gives it is not read here: the finding would stand in the
        # method, not at the call that passes the loss, where the runtime finding and its edit are.)
        return passed is not None and _with_graph(a, passed[0], passed[2], passed[1], depth + 1)
    if b.ctx.grad_off is not None:
        return False
    if is_number(a, unit, expr, line):
        return False
    if isinstance(b.stmt, (ast.For, ast.AsyncFor)):
        # `for name, value in losses.items()`: the values of a container with history have it
        source = _items_source(b.stmt, expr.id)
        return source is not None and _with_graph(a, source, unit, b.line, depth + 1)
    if not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
        return False
    index = unpacked_index(b.stmt, expr.id)
    if index is not None:  # `rec, kl = elbo_terms(...)`, `recon, mu, logvar = self.model(x)`
        value = b.stmt.value
        if index == -1 or type(value) is not ast.Call:
            return False
        if a.names.of(value.func) == "module" and local_callee(a, value, unit) is None:
            return _grad_on(a, value)
        found = returned_value(a, value, unit, index)
        return found is not None and _returned_with_graph(a, value, found, depth)
    return _with_graph(a, b.value, unit, b.line, depth + 1)


def _items_source(loop: ast.For | ast.AsyncFor, name: str) -> ast.expr | None:
    """The container whose values the loop variable `name` takes: `for v in losses`, `for v in losses.values()`,
    `for k, v in losses.items()`; None for keys, indices and anything else (`for key in result.missing_keys`)."""
    iterable, target = loop.iter, loop.target
    if type(target) is ast.Name and target.id == name:
        if type(iterable) is ast.Name:
            return iterable
        if type(iterable) is ast.Call and call_name(iterable) == "values" and type(iterable.func) is ast.Attribute \
                and not iterable.args and type(iterable.func.value) is ast.Name:
            return iterable.func.value
        return None
    if type(target) is ast.Tuple and len(target.elts) == 2 and type(target.elts[1]) is ast.Name \
            and target.elts[1].id == name and type(iterable) is ast.Call and call_name(iterable) == "items" \
            and type(iterable.func) is ast.Attribute and not iterable.args and type(iterable.func.value) is ast.Name:
        return iterable.func.value
    return None


def _call_with_graph(a: FileAnalysis, call: ast.Call, unit, line: int, depth: int) -> bool:
    name = call_name(call)
    if name in _NO_HISTORY or name in _SAFE_WRAPS or not _grad_on(a, call):
        return False
    callee = local_callee(a, call, unit)
    if callee is not None:  # a helper of this file: what it returns
        if callee.name in a.grad_off_functions or gives_number(a, call, unit):
            return False
        found = returned_value(a, call, unit)
        return found is not None and _returned_with_graph(a, call, found, depth)
    if is_loss_call(a, call) or a.names.of(call.func) == "module":
        return True
    func = call.func
    if type(func) is ast.Attribute and dotted(func.value) not in _TORCH_MODULES:
        # a tensor method (`out.mean()`, `logits.softmax(-1)`, `losses.items()`): made from its receiver
        return _with_graph(a, func.value, unit, line, depth + 1)
    if type(func) is ast.Attribute or (type(func) is ast.Name and (func.id in _KEEP_ITEMS or func.id == "sum")):
        # `torch.sigmoid(model(x))`, `torch.stack(outs)`, `sum(losses)`: made from its tensor arguments
        return any(_with_graph(a, arg, unit, line, depth + 1) for arg in call.args if type(arg) is not ast.Starred)
    return False


_TORCH_MODULES = frozenset({"torch", "F", "torch.nn.functional", "nn.functional", "torch.special", "torch.linalg"})


def _returned_with_graph(a: FileAnalysis, call: ast.Call, found, depth: int) -> bool:
    value, line, inner = found
    return _with_graph(a, value, inner, line, depth + 1)


def _grad_on(a: FileAnalysis, call: ast.Call) -> bool:
    """Whether `call` runs with gradient recording on where it is written (not inside `no_grad`)."""
    index = a.__dict__.get("_gd207_call_ctx")
    if index is None:
        index = a._gd207_call_ctx = {id(c): ctx for c, ctx in a.calls}  # type: ignore[attr-defined]
    ctx = index.get(id(call))
    return ctx is None or ctx.grad_off is None


def _repeated_units(a: FileAnalysis, loop_backward: dict[int, set[str]]) -> dict[int, bool]:
    """Functions (by id of their node) that a training or data loop of this file calls with gradients on."""
    out: dict[int, bool] = {}
    for call, ctx in a.calls:
        if not ctx.loops or ctx.grad_off is not None:
            continue
        callee = local_callee(a, call, ctx.unit)
        if callee is None:
            continue
        if any(id(loop) in loop_backward or _DATA_ITER.search(a.segment(getattr(loop, "iter", loop)))
               for loop in ctx.loops):
            out[id(callee)] = True
    return out


def _reset_outside_init(a: FileAnalysis, cls, key: str) -> bool:
    """`self.log_probs` emptied somewhere other than `__init__` (`self.log_probs = []`, `.clear()`,
    `del self.log_probs[:]`): a buffer of one episode or one accumulation window, not a history."""
    for name, method in cls.methods.items():
        unit = a.method_unit(method)
        if unit is None:
            continue
        if name != "__init__" and key in unit.bindings:
            return True
        for node in ast.walk(method):
            if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in ("clear", "pop") \
                    and _container_key_or_dotted(node.func.value) == key:
                return True
            if type(node) is ast.Delete and any(_container_key_or_dotted(t) == key for t in node.targets):
                return True
    return False


def _container_key_or_dotted(node: ast.expr) -> str | None:
    return dotted(node) or _container_key(node)


def _attribute_reaches_backward(a: FileAnalysis, key: str, reach: set[str]) -> bool:
    """`self.saved_log_probs` of a policy whose `policy.saved_log_probs` some backward uses."""
    attr = key.split(".", 1)[1]
    return any(name == attr or name.endswith("." + attr) for name in reach)


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


def _report(r: Reporter, a: FileAnalysis, node: ast.AST, key: str, value: ast.expr, ctx: Ctx, trains: bool,
            target: str) -> None:
    shown = r.segment(value)
    if isinstance(node, ast.AugAssign):
        what = f"`{target} += {shown}` adds a tensor with autograd history to `{key}`"
        fix = None
        if isinstance(value, ast.Name) and _only_logged(a, ctx, key, node):
            fix = r.fix_for(value, f"{shown}.item()", f"accumulate `{shown}.item()`")
        whole = f"({shown})" if isinstance(value, (ast.BinOp, ast.UnaryOp)) else shown
        hint = f"Accumulate a number: `{target} += {whole}.item()` (or `{whole}.detach()`)."
    else:
        what = f"`{target}.{call_name(node)}({shown})` keeps a tensor with autograd history in `{key}`"
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
