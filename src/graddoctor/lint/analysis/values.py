"""Following a tensor back to what it was made from, through names and harmless operations.

`back(a, unit, expr, line)` yields `(expr, line)` pairs: the expression, then
what its name was assigned from, then through `.mean()`, `* 0.5`, `.to(device)`
and the prediction argument of a loss function, and so on. Checks read the
chain and stop at the first thing that settles their question.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from graddoctor.lint.analysis.model import Binding, FileAnalysis, Unit, calls_in
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.analysis.numbers import gives_number
from graddoctor.lint.analysis.returns import argument, callee, instance_class, returned, returned_by, returned_value

NEUTRAL_METHODS = frozenset(
    "mean sum float double half squeeze unsqueeze view reshape to cuda cpu contiguous clone flatten abs neg "
    "type_as".split()
)
LOSS_FUNCTIONS = frozenset(
    "cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy "
    "binary_cross_entropy_with_logits kl_div bce_loss ctc_loss cosine_embedding_loss margin_ranking_loss "
    "triplet_margin_loss poisson_nll_loss gaussian_nll_loss soft_margin_loss multilabel_soft_margin_loss".split()
)
_MODEL_TOKENS = frozenset(
    "model net encoder decoder generator discriminator student teacher policy actor critic backbone head heads "
    "classifier vae gpt lm transformer rnn lstm gru mlp cnn unet resnet g d".split()
)
_MODEL_SUFFIXES = ("model", "net", "former", "encoder", "decoder")
_ACTIONS = frozenset(
    "evaluate eval validate test train fit run compute get build load save make create init setup prepare score "
    "update log print plot export freeze unfreeze count summarize summarise copy clone wrap check measure".split()
)
_TOKEN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_word_cache: dict[str, bool] = {}


def _model_like(name: str) -> bool:
    """`model`, `netG`, `text_encoder`, `resnet18`, `G`: a name people give a network (split at _ and case).

    A name that starts with a verb (`evaluate_model`, `train_net`, `build_encoder`) names
    something done to a network, whose result we cannot tell: not a forward pass.
    """
    found = _word_cache.get(name)
    if found is None:
        tokens = [t.lower() for t in _TOKEN.findall(name)]
        found = any(t in _MODEL_TOKENS or t.endswith(_MODEL_SUFFIXES) for t in tokens) and not (
            len(tokens) > 1 and tokens[0] in _ACTIONS
        )
        _word_cache[name] = found
    return found


def may_run_model(a: FileAnalysis, call: ast.Call) -> bool:
    """`is_model_call`, or a call named after a network whose result we cannot see (`run_model(x)`, `eval_net(x)`).

    For checks that stay silent when a forward pass may be involved: there, not knowing counts as maybe.
    """
    if is_model_call(a, call):
        return True
    text = dotted(call.func)
    if text is None or text.startswith(("torch.", "F.", "nn.", "np.", "math.")):
        return False
    if type(call.func) is ast.Name and call.func.id in a.functions and gives_number(a, call, a.units[0]):
        return False
    tokens = [t.lower() for t in _TOKEN.findall(text.rsplit(".", 1)[-1])]
    return any(t in _MODEL_TOKENS or t.endswith(_MODEL_SUFFIXES) for t in tokens)
_MAX = 12
# casts and shape changes with arguments: the same values, the same history
_RESHAPES = frozenset(
    "to type type_as view reshape flatten permute transpose view_as reshape_as expand expand_as".split())
# Same tensor lineage with arguments (a dim, an exponent, bounds): `out.softmax(1)`,
# `torch.sigmoid(out)`. The value-cuts (argmax, round, integer casts) are stepped
# through too, so that what they cut can be followed to the model: the checks look
# at each expression before stepping past it.
_LINEAGE = frozenset(
    "sigmoid tanh relu softmax log_softmax exp log pow clamp clip sqrt square squeeze unsqueeze sum mean "
    "argmax argmin round sign long int bool float".split()
)
_LINEAGE_MODULES = frozenset({"torch", "F", "torch.nn.functional", "nn.functional"})
_SIDE_DEPTH = 2  # nested two-operand arithmetic followed this deep to pick the side with the model


def is_loss_call(a: FileAnalysis, call: ast.Call) -> bool:
    name = call_name(call)
    if name in LOSS_FUNCTIONS:
        return True
    kind = a.names.of(call.func)
    if kind == "loss":
        return True
    text = (dotted(call.func) or "").rsplit(".", 1)[-1].lower()
    return kind is None and (text in ("criterion", "loss_fn", "loss_func", "lossfn") or text.endswith("_criterion"))


def is_model_call(a: FileAnalysis, call: ast.Call) -> bool:
    """A call that most likely runs a network forward: `model(x)`, `self.encoder(h)`, `G(z)`."""
    func = call.func
    kind = a.names.of(func)
    if kind is not None:
        return kind == "module"
    if isinstance(func, ast.Call):  # nn.Linear(3, 4)(x)
        return a.names.classify_call(func) == "module"
    if type(func) is ast.Name and func.id == "self":  # `self(img)` in a method of an nn.Module class of this file
        return any(info.is_module and "forward" in info.methods for info in a.classes.values())
    if type(func) is ast.Name and func.id in a.functions and gives_number(a, call, a.units[0]):
        return False  # `evaluate_model(...)` of this file returns a float: its name says model, its returns say number
    text = dotted(func)
    if text is None:
        return False
    last = text.rsplit(".", 1)[-1]
    if text.startswith("self.") and text.count(".") == 1 and last not in ("forward",):
        return _model_like(last) or last in _module_attrs(a)
    if text.startswith(("torch.", "F.", "nn.", "np.", "math.")):
        return False
    return _model_like(last)


def _module_attrs(a: FileAnalysis) -> set[str]:
    cached = getattr(a, "_module_attrs", None)
    if cached is None:
        cached = {k.split(".", 1)[1] for k, v in a.names.kind.items() if k.startswith("self.") and v == "module"}
        a._module_attrs = cached  # type: ignore[attr-defined]
    return cached


def step_into(
    a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int = 0
) -> tuple[ast.expr, int, Unit] | None:
    """One step back along the chain, into this file's helpers and their returns; None where it ends."""
    kind = type(expr)
    if kind is ast.Name or kind is ast.Attribute:
        key = dotted(expr)
        if key is None:
            return None
        b = binding_of(a, unit, key, expr, line)
        if b is None:
            return argument(a, unit, key) if kind is ast.Name else None  # a helper's parameter: what its caller passed
        if isinstance(b.stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            return None
        if (
            isinstance(b.stmt, ast.Assign)
            and not isinstance(b.stmt.value, (ast.Tuple, ast.List))  # `a, b = x, y`: each name holds its own item
            and any(isinstance(t, (ast.Tuple, ast.List)) for t in b.stmt.targets)
        ):
            if type(b.value) is ast.Call and call_name(b.value) in _SPLITS:
                return _split_source(b.value, b.line, unit)  # `p1, p2 = out.chunk(2)`: each part is `out`'s
            # `loss, value = compute(batch)`: this name's item of what the helper returns, if we can see it
            index = _position(b.stmt, key)
            if index is None or type(b.value) is not ast.Call:
                return None
            return returned_value(a, b.value, unit, index)
        return b.value, b.line, unit
    if kind is ast.Subscript:
        return item_of(a, unit, expr, line)
    if kind is ast.Call:
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in NEUTRAL_METHODS and not expr.args:
            return func.value, line, unit
        if isinstance(func, ast.Attribute) and func.attr in _RESHAPES:
            return func.value, line, unit  # a cast to an integer type is a cut: the checks see it before this step
        if isinstance(func, ast.Attribute) and func.attr in _LINEAGE:
            owner = dotted(func.value)
            if owner in _LINEAGE_MODULES:
                return (expr.args[0], line, unit) if expr.args else None  # torch.sigmoid(out)
            if owner is None or owner not in ("math", "np", "numpy", "builtins"):
                return func.value, line, unit  # out.softmax(1), logits.argmax(dim=1)
        if is_loss_call(a, expr) and expr.args:
            return expr.args[0], line, unit
        if expr.args and isinstance(func, ast.Attribute) and func.attr in NEUTRAL_METHODS and dotted(func.value) == "torch":
            return expr.args[0], line, unit  # torch.mean(loss)
        forward = _loss_forward(a, expr)
        if forward is not None:
            return returned_by(a, forward, expr, unit)
        return returned_value(a, expr, unit)
    if kind is ast.BinOp:
        if isinstance(expr.right, ast.Constant):
            return expr.left, line, unit
        if isinstance(expr.left, ast.Constant):
            return expr.right, line, unit
        if depth >= _SIDE_DEPTH:
            return None
        # `pred - y`, `weight * kl`: follow the side made from a model's output when the
        # other is surely data (a batch, a parameter, a constant); anything unknown there
        # (`dist.log_prob(a)`, a helper from elsewhere) may carry the graph: the chain ends.
        for side, other in ((expr.left, expr.right), (expr.right, expr.left)):
            if _is_data(a, unit, other, line, depth + 1) and _reaches_model(a, unit, side, line, depth + 1):
                return side, line, unit
        return None
    if kind is ast.UnaryOp:
        return expr.operand, line, unit
    return None


def _loss_forward(a: FileAnalysis, call: ast.Call) -> ast.AST | None:
    """The `forward` of a module of this file that returns only losses (`loss = model(v1, v2)`).

    The forward of an ordinary network is not followed: its output has a graph from the
    network's own parameters whatever its input was.
    """
    if type(call.func) is not ast.Name:
        return None
    info = instance_class(a, call.func)
    forward = info.methods.get("forward") if info is not None and info.is_module else None
    rets = returned(a, forward) if forward is not None else []
    for ret in rets:
        calls = [c for c in ast.walk(ret.value) if type(c) is ast.Call]
        if not calls or not all(is_loss_call(a, c) for c in calls):
            return None
    return forward if rets else None


_SPLITS = frozenset({"chunk", "split", "unbind", "tensor_split"})


def _split_source(call: ast.Call, line: int, unit: Unit) -> tuple[ast.expr, int, Unit] | None:
    func = call.func
    if type(func) is not ast.Attribute:
        return None
    if dotted(func.value) == "torch":
        return (call.args[0], line, unit) if call.args else None  # torch.chunk(out, 2)
    return func.value, line, unit


def binding_of(a: FileAnalysis, unit: Unit, key: str, node: ast.expr, line: int) -> Binding | None:
    """The assignment that gives `node` (a use of `key` on `line`) its value.

    In `x = x * mask` the `x` on the right is the previous assignment's, not this one.
    """
    b = a.binding_before(unit, key, line)
    if b is not None and b.line == line and any(n is node for n in ast.walk(b.value)):
        earlier = [x for x in unit.bindings.get(key, ()) if x.line < line]
        return earlier[-1] if earlier else None
    return b


def item_of(a: FileAnalysis, unit: Unit, expr: ast.Subscript, line: int) -> tuple[ast.expr, int, Unit] | None:
    """`losses["loss"]`, `out[0]`: the value stored under a constant key, where the container is visible.

    The container is followed back through names and this file's helpers to a dict or tuple
    literal, or to a name whose items are assigned one by one (`losses["loss"] = ...`).
    """
    key = expr.slice
    if type(key) is not ast.Constant or type(key.value) not in (str, int):
        return None
    wanted = key.value
    container, at, where = expr.value, line, unit
    for _ in range(_MAX):
        kind = type(container)
        if kind is ast.Dict:
            for k, v in zip(container.keys, container.values):
                if type(k) is ast.Constant and k.value == wanted:
                    return v, at, where
            return None
        if kind in (ast.Tuple, ast.List):
            elts = container.elts
            if type(wanted) is not int or any(type(e) is ast.Starred for e in elts) or not -len(elts) <= wanted < len(elts):
                return None
            return elts[wanted], at, where
        if kind is ast.Name or kind is ast.Attribute:
            stored = _stored_item(a, where, dotted(container), wanted, at)
            if stored is not None:
                return stored
            nxt = step_into(a, where, container, at)
        elif kind is ast.Call:
            nxt = returned_value(a, container, where)  # only into this file's helpers, not through a loss or a model
        else:
            return None
        if nxt is None:
            return None
        container, at, where = nxt
    return None


def _stored_item(a: FileAnalysis, unit: Unit, container: str | None, wanted, line: int):
    """The last `container[wanted] = value` of `unit` above `line` (`losses["loss"] = total`)."""
    found = None
    for name, value, stmt, ctx in a.item_stores:
        if name != container or ctx.unit is not unit or stmt.lineno > line:
            continue
        target = next((t for t in getattr(stmt, "targets", ()) if type(t) is ast.Subscript), None)
        if target is not None and type(target.slice) is ast.Constant and target.slice.value == wanted:
            found = (value, stmt.lineno, unit)
    return found


def _reaches_model(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int) -> bool:
    """Whether `expr` is made from a model's output, cut or not (the question is which side is the model's)."""
    for _ in range(_MAX):
        if any(is_model_call(a, c) or is_loss_call(a, c) for c in calls_in(expr)):
            return True
        if type(expr) is ast.Attribute and expr.attr == "data":
            nxt = (expr.value, line, unit)
        elif type(expr) is ast.Call and type(expr.func) is ast.Attribute and expr.func.attr == "detach":
            nxt = (expr.func.value, line, unit)
        elif type(expr) is ast.Compare:
            nxt = (expr.left, line, unit)
        elif type(expr) is ast.BinOp and not isinstance(expr.left, ast.Constant) and not isinstance(expr.right, ast.Constant):
            if depth >= _SIDE_DEPTH:
                return True  # too deep to tell: count it as the model's, so that the caller stops rather than guesses
            return _reaches_model(a, unit, expr.left, line, depth + 1) or _reaches_model(a, unit, expr.right, line, depth + 1)
        else:
            nxt = step_into(a, unit, expr, line, depth)
            if nxt is None and type(expr) is ast.Subscript:
                nxt = (expr.value, line, unit)  # `h[src]`, `x[:, 0]`: part of the same tensor
            elif nxt is None and type(expr) is ast.Name:
                nxt = _unpacked_from(a, unit, expr, line)  # `cls_logits, boxes = raw`: an item of `raw`
        if nxt is None:
            return False
        expr, line, unit = nxt
    return False


def _unpacked_from(a: FileAnalysis, unit: Unit, name: ast.Name, line: int) -> tuple[ast.expr, int, Unit] | None:
    """`cls_logits, boxes = raw`: the container a name was unpacked from, when that is a plain name."""
    b = binding_of(a, unit, name.id, name, line)
    if b is None or type(b.stmt) is not ast.Assign or type(b.value) not in (ast.Name, ast.Attribute):
        return None
    if not any(isinstance(t, (ast.Tuple, ast.List)) for t in b.stmt.targets):
        return None
    return b.value, b.line, unit


def made_from_model(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int) -> bool:
    """Whether `expr` is made from a network's output (cut or not), following both operands of arithmetic."""
    return _reaches_model(a, unit, expr, line, 0)


def unpacked_at(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int) -> ast.Assign | None:
    """`loss, value = compute(batch)`: the unpacking that gives `expr` its value, if that is how it got it."""
    key = dotted(expr) if type(expr) in (ast.Name, ast.Attribute) else None
    b = a.binding_before(unit, key, line) if key else None
    if b is None or type(b.stmt) is not ast.Assign or type(b.stmt.value) is not ast.Call:
        return None
    return b.stmt if any(isinstance(t, (ast.Tuple, ast.List)) for t in b.stmt.targets) else None


_DATA_METHODS = NEUTRAL_METHODS | _LINEAGE | {"to", "view", "reshape", "type_as", "detach", "clone", "expand", "t"}


_FACTORIES = frozenset(
    "randn rand randint randperm zeros ones full empty arange linspace eye normal tensor as_tensor from_numpy "
    "zeros_like ones_like full_like empty_like rand_like randn_like randint_like".split()
)


def _is_data(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int) -> bool:
    """Whether `expr` is surely without a graph: made only from constants, batches and parameters by tensor ops."""
    for _ in range(_MAX):
        kind = type(expr)
        if kind is ast.Constant:
            return True
        if kind is ast.Name or kind is ast.Attribute:
            key = dotted(expr)
            if key is None:
                return False
            b = a.binding_before(unit, key, line)
            if b is None or isinstance(b.stmt, (ast.For, ast.AsyncFor)):
                return kind is ast.Name  # a parameter, a global or a loop's batch; `self.x` may be anything
            if type(b.stmt) is not ast.Assign:
                return False
            if isinstance(b.stmt.value, (ast.Tuple, ast.List)):
                pass  # `x, y = torch.randn(8, 4), labels`: each name holds its own item (b.value)
            elif any(isinstance(t, (ast.Tuple, ast.List)) for t in b.stmt.targets):
                return False
            expr, line = b.value, b.line
        elif kind is ast.Subscript:
            expr = expr.value
        elif kind is ast.UnaryOp:
            expr = expr.operand
        elif kind is ast.Compare or kind is ast.BinOp:
            if depth >= _SIDE_DEPTH + 2:
                return False
            parts = [expr.left, *expr.comparators] if kind is ast.Compare else [expr.left, expr.right]
            return all(_is_data(a, unit, p, line, depth + 1) for p in parts)
        elif kind is ast.Call and type(expr.func) is ast.Attribute and expr.func.attr in _FACTORIES:
            return dotted(expr.func.value) == "torch"  # torch.randint(0, 4, (32,)): new values, no history
        elif kind is ast.Call and type(expr.func) is ast.Attribute and expr.func.attr in _DATA_METHODS:
            if dotted(expr.func.value) in _LINEAGE_MODULES:
                if not expr.args:
                    return False
                expr = expr.args[0]
            else:
                expr = expr.func.value
        else:
            return False
    return False


def surely_data(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int) -> bool:
    """Whether `expr` is surely without a graph (constants, batches, new tensors), never a model's output."""
    return _is_data(a, unit, expr, line, 0)


def _position(stmt: ast.Assign, key: str) -> int | None:
    for target in stmt.targets:
        if isinstance(target, (ast.Tuple, ast.List)):
            for i, elt in enumerate(target.elts):
                if type(elt) is ast.Starred:
                    return None
                if dotted(elt) == key:
                    return i
    return None


# A loss made in a helper (`dice_loss(pred_mask, masks)`) is a dozen arithmetic steps from
# what the call site passed: the chain must be long enough to come back out of it.
_CHAIN = 24


def chain(
    a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, limit: int = _CHAIN
) -> Iterator[tuple[ast.expr, int, Unit]]:
    """`expr`, then what it was made from, step by step (into helpers), with the unit each step is in."""
    for _ in range(limit):
        yield expr, line, unit
        nxt = step_into(a, unit, expr, line)
        if nxt is None:
            return
        expr, line, unit = nxt


def back(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int) -> Iterator[tuple[ast.expr, int]]:
    for expr, line, _ in chain(a, unit, expr, line):
        yield expr, line


def carries_graph(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int) -> bool:
    """Whether `expr` is (made from) a model's output or a loss: only then is cutting it a loss of gradient.

    `detach()` of data, or a leaf made from a numpy array, is correct code.
    """
    for value, _ in back(a, unit, expr, line):
        if any(is_model_call(a, c) or is_loss_call(a, c) for c in calls_in(value)):
            return True
    return False


def backward_calls(a: FileAnalysis):
    """Every `X.backward()` (and `accelerator.backward(X)`...) with its receiver X and context (cached on `a`)."""
    cached = a.__dict__.get("_backward_calls")
    if cached is not None:
        return cached
    out = a._backward_calls = []
    if "backward" not in a.source:
        return out
    for call, ctx in a.calls:
        func = call.func
        if not isinstance(func, ast.Attribute):
            if isinstance(func, ast.Name) and func.id == "backward" and call.args:
                out.append((call, call.args[0], ctx))
            continue
        if func.attr == "backward":
            recv = func.value
            if dotted(func) == "torch.autograd.backward" or a.names.of(recv) == "accelerator" or (
                dotted(recv) or ""
            ).endswith(("accelerator", "fabric")):
                if call.args:
                    out.append((call, call.args[0], ctx))
            elif callee(a, call, ctx.unit) is not None:
                continue  # `engine.backward(loss)`, a method of this file: what it does (below), not its name
            elif not (isinstance(recv, ast.Name) and recv.id in ("self", "ctx", "cls", "super")):
                out.append((call, recv, ctx))
        elif func.attr == "manual_backward" and call.args:
            out.append((call, call.args[0], ctx))
    out += _wrapped_backward_calls(a, out)
    return out


def _wrapped_backward_calls(a: FileAnalysis, found: list) -> list:
    """A function or method of this file that calls backward on one of its parameters (an
    Accelerate-like `backward(self, loss)`, a `backward_step(loss, opt)` helper): each of its call
    sites is a backward of what it passes there, judged in the caller like an inline one."""
    wrapped: dict[int, int] = {}  # id(function) -> position of the parameter it backwards
    for _, recv, ctx in found:
        function = ctx.unit.node
        while type(recv) is ast.BinOp and type(recv.op) in (ast.Mult, ast.Div):
            recv = recv.left  # `(loss / self.accumulation).backward()`: the loss, scaled
        if type(recv) is not ast.Name or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if recv.id in ctx.unit.bindings:
            continue  # reassigned in the function: not what the caller passed
        params = [p.arg for p in function.args.posonlyargs + function.args.args]
        if recv.id in params:
            wrapped[id(function)] = params.index(recv.id)
    if not wrapped:
        return []
    seen = {id(c) for c, _, _ in found}
    out = []
    for call, ctx in a.calls:
        if id(call) in seen or not call.args and not call.keywords:
            continue
        target = callee(a, call, ctx.unit)
        if target is None or id(target[0]) not in wrapped:
            continue
        function, _, skip = target
        position = wrapped[id(function)]
        name = (function.args.posonlyargs + function.args.args)[position].arg
        given = next((k.value for k in call.keywords if k.arg == name), None)
        index = position - skip
        if given is None and 0 <= index < len(call.args) and not any(type(x) is ast.Starred for x in call.args[: index + 1]):
            given = call.args[index]
        if given is not None:
            out.append((call, given, ctx))
    return out


def names_in(expr: ast.AST) -> set[str]:
    """Dotted names read in `expr` (`loss`, `self.total`)."""
    found = set()
    for node in ast.walk(expr):
        if isinstance(node, (ast.Name, ast.Attribute)):
            key = dotted(node)
            if key:
                found.add(key)
    return found


def names_reaching_backward(a: FileAnalysis) -> set[str]:
    """Names whose values flow into some backward() in this file (they are meant to carry a graph); cached."""
    cached = a.__dict__.get("_reaching_backward")
    if cached is not None:
        return cached
    reach: set[str] = set()
    frontier = [names_in(recv) for _, recv, _ in backward_calls(a)]
    bindings: dict[str, list] = {}
    for unit in a.units:
        for key, bs in unit.bindings.items():
            bindings.setdefault(key, []).extend(bs)
    appends: dict[str, list[ast.expr]] = {}
    for call, _ in a.calls:
        if call_name(call) in ("append", "extend", "insert") and isinstance(call.func, ast.Attribute) and call.args:
            key = dotted(call.func.value)
            if key:
                appends.setdefault(key, []).append(call.args[-1])
    for aug, _ in a.augassigns:
        key = dotted(aug.target)
        if key:
            appends.setdefault(key, []).append(aug.value)
    while frontier:
        batch = frontier.pop()
        for key in batch - reach:
            reach.add(key)
            for b in bindings.get(key, ()):
                frontier.append(names_in(b.value))
            for v in appends.get(key, ()):
                frontier.append(names_in(v))
    a._reaching_backward = reach  # type: ignore[attr-defined]
    return reach
