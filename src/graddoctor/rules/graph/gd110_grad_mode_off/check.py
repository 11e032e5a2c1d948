"""GD110: the loss, or the forward pass it comes from, was computed with gradient recording off."""

from __future__ import annotations

import ast
import re

from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import Binding, FileAnalysis, GradOff, Unit, calls_in
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.analysis.numbers import causes_without_graph
from graddoctor.lint.analysis.returns import (
    instance_class, local_callee, passed_to, returned, returned_value, unpacked_index,
)
from graddoctor.lint.analysis.values import backward_calls, chain, may_run_model, surely_data
from graddoctor.lint.reporter import Reporter
from graddoctor.rules.graph.gd102_loss_without_graph.check import cut_with_graph
from graddoctor.rules.graph.gd105_unregistered_parameter.check import PARAMETER_FREE

CODE = "GD110"
_DEPTH = 4


_DATA_METHODS = frozenset(
    "to cuda cpu float double half long int bool view reshape unsqueeze squeeze permute flatten contiguous "
    "clone detach next iter len get items keys values".split()
)


def _grad_off_inputs(a: FileAnalysis, unit: Unit, loss: Binding) -> list[tuple[Binding, GradOff]] | None:
    """The loss's inputs made under no_grad, when every other input is plain data; else None.

    An input computed outside no_grad by anything but a data method (`.to()`,
    `.view()`...) may carry the graph (a head on frozen features), so we stay silent.
    """
    if any(may_run_model(a, c) for c in calls_in(loss.value)):
        return None  # the loss runs a forward pass itself, outside no_grad
    off: list[tuple[Binding, GradOff]] = []
    callees = {id(c.func) for c in calls_in(loss.value)}
    for node in ast.walk(loss.value):
        if not isinstance(node, (ast.Name, ast.Attribute)) or id(node) in callees or not isinstance(node.ctx, ast.Load):
            continue
        key = dotted(node)
        b = a.binding_before(unit, key, loss.line) if key else None
        if b is None and type(node) is ast.Name and _passed_with_graph(a, unit, node.id):
            return None  # `log_probs * advantage`: the caller passes `log_probs` from the policy's forward
        if b is None or b is loss or not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
            continue  # a parameter, a loop variable, a global: data
        helper = _decorated_helper(a, b.value) if type(b.value) is ast.Call else None
        if b.ctx.grad_off is not None:
            off.append((b, b.ctx.grad_off))
        elif helper is not None and helper[1] is b.value:  # `logits = predict(x)`, predict under @torch.no_grad()
            off.append((b, helper[0]))
        elif type(b.value) is ast.Call and (made := _returned_under_grad_off(a, b.value, unit)) is not None:
            off.append((b, made))  # `logits = self.forward_pass(x)`, which returns `self.model(x)` inside no_grad
        elif any(not (isinstance(c.func, ast.Attribute) and c.func.attr in _DATA_METHODS) for c in calls_in(b.value)) \
                and not _new_data(a, unit, b):  # `noise = torch.randn_like(x0)` is data
            return None
    return off or None


def _passed_with_graph(a: FileAnalysis, unit: Unit, name: str) -> bool:
    """Some call site of this file passes parameter `name` a value that is not surely data (a model's
    output, an unpacked helper result): the parameter may carry the graph the loss needs."""
    return any(not surely_data(a, caller, value, line) for value, line, caller in passed_to(a, unit, name))


def _new_data(a: FileAnalysis, unit: Unit, b: Binding) -> bool:
    """A value without history that is no trainable leaf either (`torch.randn_like(x)`, not
    `torch.tensor(t0, requires_grad=True)`, which an optimizer may fit on no_grad features)."""
    if any(k.arg == "requires_grad" for c in calls_in(b.value) for k in c.keywords):
        return False
    return surely_data(a, unit, b.value, b.line)


def _returned_under_grad_off(a: FileAnalysis, call: ast.Call, unit: Unit) -> GradOff | None:
    """Where gradient recording was off for every value the helper `call` runs returns (None: not for all)."""
    function = local_callee(a, call, unit)
    inner = a.method_unit(function) if function is not None else None
    rets = returned(a, function) if inner is not None else []
    if not rets:
        return None
    found = None
    for ret in rets:
        value = ret.value
        if type(value) is ast.Name:
            b = a.binding_before(inner, value.id, ret.lineno)
            off = b.ctx.grad_off if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) else None
        elif type(value) is ast.Call and _ctx_of(a, value) is not None:
            off = _ctx_of(a, value).grad_off
        else:
            off = None
        if off is None:
            return None
        found = found or off
    return found


def _ctx_of(a: FileAnalysis, call: ast.Call):
    ctx_of = a.__dict__.get("_ctx_of_call")
    if ctx_of is None:
        ctx_of = a._ctx_of_call = {id(c): ctx for c, ctx in a.calls}  # type: ignore[attr-defined]
    return ctx_of.get(id(call))


def _calls_under_grad_off(a: FileAnalysis) -> bool:
    """Any call in the file made with gradient recording off (a helper may return its result)."""
    cached = a.__dict__.get("_gd_calls_off")
    if cached is None:
        cached = a._gd_calls_off = any(ctx.grad_off is not None for _, ctx in a.calls)  # type: ignore[attr-defined]
    return cached


def _has_grad_off(unit: Unit) -> bool:
    cached = unit.__dict__.get("_gd_grad_off")
    if cached is None:
        cached = unit._gd_grad_off = any(b.ctx.grad_off for bs in unit.bindings.values() for b in bs)
    return cached


def _decorated_helper(a: FileAnalysis, value: ast.expr) -> tuple[GradOff, ast.Call] | None:
    for node in calls_in(value):
        name = dotted(node.func) or ""
        name = name[5:] if name.startswith("self.") else name
        if name in a.grad_off_functions:
            return a.grad_off_functions[name], node
    return None


def check(a: FileAnalysis, r: Reporter) -> None:
    if not any(word in a.source for word in ("no_grad", "inference_mode", "set_grad_enabled")):
        return
    for call, recv, ctx in backward_calls(a):
        before = len(r.results)
        _judge_backward(a, r, call, recv, ctx)
        if len(r.results) == before:
            _graph_off_throughout(a, r, call, recv, ctx)
    if "set_grad_enabled" in a.source:
        _switched_off(a, r)
    _layers_frozen_by_grad_off(a, r)


def _graph_off_throughout(a: FileAnalysis, r: Reporter, call: ast.Call, recv: ast.expr, ctx) -> None:
    """Every part of the loss is without history, and some part was computed with recording off:
    `self.nt_xent(self.embed(v1), self.embed(v2))` where `embed` is decorated `@torch.no_grad()`,
    followed through this file's helpers, methods and their parameters (numbers.without_graph)."""
    why = causes_without_graph(a, ctx.unit, recv, call.lineno) or []
    cause = next((c for c in why if c.kind == "grad_off"), None)
    if cause is None or cut_with_graph(a, why) is not None:
        return  # a part cut from a value that had a graph (a re-wrapped student output) is GD102's cause
    lead = f"The loss is made from `{r.segment(cause.node)}` (line {cause.node.lineno}), computed"
    _report(r, cause.off, cause.node.lineno, recv, call, lead)


def _judge_backward(a: FileAnalysis, r: Reporter, call: ast.Call, recv: ast.expr, ctx) -> None:
    key = dotted(recv)
    loss = a.binding_before(ctx.unit, key, call.lineno) if key else None
    if loss is None or not isinstance(loss.stmt, (ast.Assign, ast.AnnAssign)):
        _made_along_chain(a, r, ctx.unit, recv, call)
        return
    if loss.ctx.grad_off is not None:
        _report(r, loss.ctx.grad_off, loss.line, recv, call, f"The loss is computed on line {loss.line}")
        return
    helper = _decorated_helper(a, loss.value)
    if helper is not None:
        lead = f"The loss comes from `{r.segment(helper[1].func)}()` (line {helper[1].lineno}), which runs"
        _report(r, helper[0], helper[1].lineno, recv, call, lead)
        return
    if type(loss.value) is ast.Call and _returned_without_graph(a, r, ctx.unit, loss, key, recv, call):
        return
    if not _has_grad_off(ctx.unit) and not a.grad_off_functions and not _calls_under_grad_off(a):
        return
    producers = _grad_off_inputs(a, ctx.unit, loss)
    if producers:
        first, off = producers[0]
        lead = f"`{first.key}`, which the loss is made from, is computed on line {first.line}"
        if off is not first.ctx.grad_off:
            lead += f" by `{r.segment(first.value.func)}()`, which runs"
        _report(r, off, first.line, recv, call, lead)


def _made_along_chain(a: FileAnalysis, r: Reporter, unit: Unit, recv: ast.expr, call: ast.Call) -> None:
    """`losses["loss"].backward()`, `out["loss"].backward()`: follow the value through containers and helpers.

    `outputs, losses = self.process_batch(x)` under no_grad, or a dict returned by a method that
    calls a helper decorated with `@torch.inference_mode()`: the first assignment along the way
    made with gradient recording off is the cause.
    """
    for expr, line, where in chain(a, unit, recv, call.lineno):
        root = expr
        while type(root) is ast.Subscript:
            root = root.value
        key = dotted(root) if type(root) in (ast.Name, ast.Attribute) else None
        b = a.binding_before(where, key, line) if key else None
        if b is None or not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
            continue
        if b.ctx.grad_off is not None:
            _report(r, b.ctx.grad_off, b.line, recv, call, f"`{key}` is computed on line {b.line}")
            return
        helper = _decorated_helper(a, b.value)
        if helper is not None and helper[1] is b.value:
            lead = f"`{key}` comes from `{r.segment(helper[1].func)}()` (line {b.line}), which runs"
            _report(r, helper[0], b.line, recv, call, lead)
            return


def _returned_without_graph(a: FileAnalysis, r: Reporter, unit: Unit, loss: Binding, key: str, recv, call) -> bool:
    """`loss = self.compute_loss(x, y)` where the helper computes what it returns under no_grad: report it there."""
    index = unpacked_index(loss.stmt, key)
    if index == -1:
        return False
    found = returned_value(a, loss.value, unit, index)
    if found is None:
        return False
    value, line, inner = found
    if type(value) is ast.Name:
        made = a.binding_before(inner, value.id, line)
    elif type(value) is ast.Call and not isinstance(value.func, ast.Lambda):
        # `return F.mse_loss(predicted, noise)`: the return statement stands for the assignment
        ret = next((r for r in returned(a, inner.node) if r.value is value), None) if inner is not None else None
        made = Binding("<return>", value, ret, _ctx_of(a, value)) if ret is not None else None
        if made is None or made.ctx is None or made.ctx.unit is not inner:
            return False
    else:
        return False
    if made is None or not isinstance(made.stmt, (ast.Assign, ast.AnnAssign, ast.Return)) or made.line > line:
        return False
    helper = f"`{r.segment(loss.value.func)}()` (line {loss.line})"
    if made.ctx.grad_off is not None:
        _report(r, made.ctx.grad_off, made.line, recv, call, f"The loss comes from {helper}, which computes it on line {made.line}")
        return True
    if not _has_grad_off(inner):
        return False
    producers = _grad_off_inputs(a, inner, made)
    if not producers:
        return False
    first, off = producers[0]
    _report(r, off, first.line, recv, call, f"The loss comes from {helper}, whose `{first.key}` is computed on line {first.line}")
    return True


def _switched_off(a: FileAnalysis, r: Reporter) -> None:
    """`torch.set_grad_enabled(False)` as a statement (often in an eval helper) lasts until switched back.

    Within a training loop the mode at backward is the last switch before it in
    the iteration, or else the last one in the previous iteration.
    """
    for it in iterations(a):
        events = it.events
        if not any(e.kind == "grad_off" for e in events):
            continue
        for i, e in enumerate(events):
            if e.kind != "backward":
                continue
            earlier = events[:i][::-1] + (events[i + 1 :][::-1] if it.kind == "loop" else [])
            mode = next((x for x in earlier if x.kind in ("grad_off", "grad_on")), None)
            if mode is not None and mode.kind == "grad_off":
                r.add(
                    CODE,
                    f"`torch.set_grad_enabled(False)` on line {mode.line} turns gradient recording off until it is "
                    f"turned back on, and nothing turns it on before backward (line {e.line}) runs: the loss has "
                    "no graph and backward() fails or reaches no parameter.",
                    mode.node,
                    related=[r.related(e.line, "backward is called here")],
                    hint="Scope it: `with torch.no_grad():` around the evaluation (or call "
                    "`torch.set_grad_enabled(True)` before training resumes).",
                )


def _report(r: Reporter, off: GradOff, made: int, recv: ast.expr, call: ast.Call, lead: str) -> None:
    node = ast.Pass(lineno=off.line, col_offset=_indent(r, off.line))
    r.add(
        CODE,
        f"{lead} under {off.how} (line {off.line}), so "
        f"`{r.segment(recv)}` has no graph and backward() cannot reach any parameter.",
        node,
        related=[r.related(made, "computed without gradient recording"), r.related(call.lineno, "backward is called here")],
        hint="Compute the forward pass and the loss outside `torch.no_grad()`/`inference_mode()`; keep no_grad for evaluation, teachers and EMA updates.",
    )


def _indent(r: Reporter, line: int) -> int:
    text = r.lines[line - 1] if 0 < line <= len(r.lines) else ""
    return len(text.encode()) - len(text.lstrip().encode())


# A submodule run without gradient recording on purpose: a teacher, a target or EMA network.
_MEANT_FROZEN = re.compile(r"teacher|target|(?:^|_)ema(?:_|$)|frozen|momentum|prior|reference|(?:^|_)ref(?:_|$)", re.I)


def _layers_frozen_by_grad_off(a: FileAnalysis, r: Reporter) -> None:
    """A network's own layer run under no_grad/inference_mode (inline in a method, or in a method that
    returns its output from there) whose output feeds another of its layers that trains, while the
    optimizer is given all of the network's parameters and nothing in the file freezes any: the
    layer's parameters are in the optimizer and never get a gradient ("no_grad saves memory").

    A frozen backbone says so (`requires_grad_(False)`, `requires_grad = False`, a `freeze` helper,
    an optimizer given only the head); a teacher's or target network's output is a target, not
    fed to a trained layer; then this stays silent.
    """
    if not backward_calls(a) or "requires_grad" in a.source or "freeze" in a.source.lower():
        return
    _networks_frozen_by_grad_off(a, r)
    for info in a.classes.values():
        if not info.is_module:
            continue
        optimized = _optimized_layers(a, info)
        if not optimized:
            continue
        units = [u for u in (a.method_unit(m) for m in info.methods.values()) if u is not None]
        producers = _grad_off_layer_methods(a, info)
        for unit in units:
            for call, ctx in a.calls:
                if ctx.unit is not unit or ctx.grad_off is not None:
                    continue
                layer = _own_layer(a, call)
                if layer is None:
                    continue
                found = _fed_from_grad_off(a, unit, call, producers)
                if found is None or found[0] == layer:
                    continue
                frozen, off, made = found
                if "*" not in optimized and frozen not in optimized:
                    continue  # the optimizer is given other layers only: `frozen` is left out on purpose
                if _MEANT_FROZEN.search(frozen[5:]) or _run_with_recording(a, frozen, info):
                    continue  # `self.target_encoder`, `self.ema_model`: kept without gradients on purpose
                node = ast.Pass(lineno=off.line, col_offset=_indent(r, off.line))
                given = f"all of `{info.name}`'s parameters" if "*" in optimized else f"`{frozen}`'s parameters"
                r.add(
                    CODE,
                    f"`{frozen}` runs under {off.how} (line {off.line}) and its output feeds `{layer}` (line "
                    f"{call.lineno}), which trains: the optimizer is given {given}, but "
                    f"those of `{frozen}` get no gradient through it and never change.",
                    node,
                    related=[r.related(made, "computed without gradient recording"),
                             r.related(call.lineno, f"`{layer}` trains on it")],
                    hint=f"Run `{frozen}` with gradient recording on; if it is meant to stay frozen, call "
                         f"`{frozen}.requires_grad_(False)` and leave its parameters out of the optimizer.",
                )
                return


# Normalization layers run under no_grad to update their running statistics (a batch-norm parity
# test, a statistics warm-up pass): their buffers are the point there, not their affine parameters.
_NORMS = re.compile(r"Norm(?:[123]d)?$")


def _own_layer(a: FileAnalysis, call: ast.Call, frozen: bool = False) -> str | None:
    """`self.head` for `self.head(h)`, a layer with parameters built on the network (for the layer run
    without recording, `frozen`: not a normalization layer)."""
    return _layer_key(a, call.func, frozen)


def _layer_key(a: FileAnalysis, node: ast.expr, frozen: bool = False) -> str | None:
    """`self.head` for the attribute `self.head`, a layer with parameters built on the network."""
    key = dotted(node)
    if not key or not key.startswith("self.") or key.count(".") != 1 or a.names.of(key) != "module":
        return None
    built = a.names.call.get(key)
    if built is not None and (call_name(built) in PARAMETER_FREE or frozen and _NORMS.search(call_name(built))):
        return None
    return key


def _grad_off_layer_methods(a: FileAnalysis, info) -> dict[str, tuple[str, GradOff, int]]:
    """Methods of the network that return one of its layers' output computed with recording off
    (`with torch.inference_mode(): return self.features(x)`, or a decorated method)."""
    out = {}
    for name, method in info.methods.items():
        inner = a.method_unit(method)
        rets = returned(a, method) if inner is not None else []
        if not rets:
            continue
        decorated = a.grad_off_functions.get(name)
        found = None
        for ret in rets:
            layer = next((k for c in calls_in(ret.value) if (k := _own_layer(a, c, frozen=True))), None)
            ctx = next((_ctx_of(a, c) for c in calls_in(ret.value)), None)
            off = decorated or (ctx.grad_off if ctx is not None else None)
            made = ret.lineno
            if layer is None and off is None:
                # `with torch.no_grad(): feats = self.encoder(x)` then `return feats.unsqueeze(0)`
                layer, off, made = _reshaped_grad_off_layer(a, inner, ret) or (None, None, 0)
            if layer is None or off is None:
                found = None
                break
            found = found or (layer, off, made)
        if found is not None:
            out[name] = found
    return out


def _layer_run_by_helper(a: FileAnalysis, unit: Unit, call: ast.Call) -> tuple[str, GradOff, int] | None:
    """`extract(self.backbone, x)`: a helper of this file, every return of which it computes with recording off,
    given one of the network's layers (the layer it runs)."""
    layers = [k for arg in call.args if (k := _layer_key(a, arg, frozen=True))]
    if len(layers) != 1:
        return None
    off = _returned_under_grad_off(a, call, unit)
    return (layers[0], off, call.lineno) if off is not None else None


def _reshaped_grad_off_layer(a: FileAnalysis, unit: Unit, ret: ast.Return) -> tuple[str, GradOff, int] | None:
    """A return made only by reshaping (`.unsqueeze(0)`, `.flatten(1)`) a name assigned under no_grad from one
    of the network's layers."""
    value = ret.value
    while type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr in _DATA_METHODS:
        value = value.func.value
    if type(value) is not ast.Name:
        return None
    b = a.binding_before(unit, value.id, ret.lineno)
    if b is None or b.ctx.grad_off is None or not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
        return None
    layer = next((k for c in calls_in(b.value) if (k := _own_layer(a, c, frozen=True))), None)
    return (layer, b.ctx.grad_off, b.line) if layer is not None else None


def _fed_from_grad_off(a: FileAnalysis, unit: Unit, call: ast.Call, producers: dict) -> tuple[str, GradOff, int] | None:
    """The grad-off layer whose output `call`'s arguments are made from: directly (`self.head(self.extract(x))`)
    or through a name assigned under no_grad from a layer (`feats = self.encoder(x)` in a `with` block)."""
    for arg in list(call.args) + [k.value for k in call.keywords]:
        for inner in calls_in(arg):
            name = dotted(inner.func) or ""
            if name.startswith("self.") and name[5:] in producers:
                return producers[name[5:]]
            found = _layer_run_by_helper(a, unit, inner)
            if found is not None:
                return found
        for node in ast.walk(arg):
            if type(node) is not ast.Name:
                continue
            b = a.binding_before(unit, node.id, call.lineno)
            if b is None or not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
                continue
            if b.ctx.grad_off is None:
                value = b.value  # `h0 = self.encode(images)`, a method that returns a layer's output made without recording
                if type(value) is ast.Call and type(value.func) is ast.Attribute and dotted(value.func.value) == "self" \
                        and value.func.attr in producers:
                    return producers[value.func.attr]
                found = _layer_run_by_helper(a, unit, value) if type(value) is ast.Call else None
                if found is not None:
                    return found[0], found[1], b.line
                continue
            layer = next((k for c in calls_in(b.value) if (k := _own_layer(a, c, frozen=True))), None)
            if layer is not None:
                return layer, b.ctx.grad_off, b.line
    return None


def _optimized_layers(a: FileAnalysis, info) -> set[str]:
    """What of the network an optimizer built in this file is given: `{"*"}` for all of its parameters
    (`Adam(self.parameters())` in one of its methods, `Adam(model.parameters())` where `model` is an
    instance of it), else its layers whose parameters a parameter group names (`{"params":
    model.backbone.parameters(), "lr": ...}`, also in a list a helper of this file returns)."""
    out: set[str] = set()
    for owner, unit in _parameter_owners(a):
        if dotted(owner) == "self" and unit.cls is info or instance_class(a, owner) is info:
            out.add("*")
        elif type(owner) is ast.Attribute and (
                dotted(owner.value) == "self" and unit.cls is info or instance_class(a, owner.value) is info):
            out.add(f"self.{owner.attr}")  # `model.backbone.parameters()`: the layer `self.backbone`
    return out


def _parameter_owners(a: FileAnalysis) -> list[tuple[ast.expr, Unit]]:
    """`(X, its unit)` for every `X.parameters()` that an optimizer built in this file is given, through lists,
    parameter groups, `+`, `itertools.chain` and this file's helpers (cached on `a`)."""
    cached = a.__dict__.get("_gd110_owners")
    if cached is None:
        cached = a._gd110_owners = []  # type: ignore[attr-defined]
        for call, ctx in a.calls:
            if a.names.classify_call(call) == "optimizer" and call.args:
                _given_parameters(a, call.args[0], ctx.unit, call.lineno, cached, 0)
    return cached


def _given_parameters(a: FileAnalysis, given: ast.expr, unit: Unit, line: int, out: list, depth: int) -> None:
    """Add to `out` the owners of the parameters `given` (an optimizer's first argument) holds."""
    if depth > 4:
        return
    kind = type(given)
    if kind is ast.BinOp and type(given.op) is ast.Add:  # `list(m.encoder.parameters()) + list(m.head.parameters())`
        _given_parameters(a, given.left, unit, line, out, depth + 1)
        _given_parameters(a, given.right, unit, line, out, depth + 1)
        return
    if kind is ast.Call and type(given.func) is ast.Attribute and given.func.attr in ("parameters", "named_parameters"):
        out.append((given.func.value, unit))
        return
    if kind in (ast.List, ast.Tuple):
        for elt in given.elts:
            _given_parameters(a, elt.value if type(elt) is ast.Starred else elt, unit, line, out, depth + 1)
    elif kind is ast.Dict:  # a parameter group
        for k, v in zip(given.keys, given.values):
            if type(k) is ast.Constant and k.value == "params":
                _given_parameters(a, v, unit, line, out, depth + 1)
    elif kind is ast.Name:
        b = a.binding_before(unit, given.id, line)
        if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
            _given_parameters(a, b.value, unit, b.line, out, depth + 1)
    elif kind is ast.Call:
        if type(given.func) is ast.Name and given.func.id in ("list", "tuple") or call_name(given) == "chain":
            for arg in given.args:
                _given_parameters(a, arg, unit, line, out, depth + 1)
            return
        found = returned_value(a, given, unit)  # `param_groups(model, args)`: the list it returns
        if found is not None:
            _given_parameters(a, found[0], found[2], found[1], out, depth + 1)


def _run_with_recording(a: FileAnalysis, key: str, info) -> bool:
    """Whether the network `key` (`backbone`, or `self.backbone` in the methods of class `info`) is also run
    somewhere with recording on (not through a method decorated with no_grad): then it gets gradients there."""
    for call, ctx in a.calls:
        if dotted(call.func) != key or ctx.grad_off is not None or (info is not None and ctx.unit.cls is not info):
            continue
        if id(ctx.unit.node) not in a.grad_off_of:
            return True
    return False


def _networks_frozen_by_grad_off(a: FileAnalysis, r: Reporter) -> None:
    """The same outside a network class: `with torch.no_grad(): feats = backbone(x)`, then `head(feats)`,
    while the optimizer is given both `backbone.parameters()` and `head.parameters()` (a parameter group
    each, say) and nothing in the file freezes the backbone: its parameters never get a gradient."""
    owners = {dotted(owner) for owner, unit in _parameter_owners(a) if dotted(owner) and "." not in dotted(owner)}
    if len(owners) < 2:
        return
    for call, ctx in a.calls:
        consumer = dotted(call.func)
        if ctx.grad_off is not None or consumer not in owners or a.names.of(consumer) != "module":
            continue
        for node in (n for arg in call.args for n in ast.walk(arg)):
            if type(node) is not ast.Name:
                continue
            b = a.binding_before(ctx.unit, node.id, call.lineno)
            if b is None or b.ctx.grad_off is None or not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
                continue
            frozen = next((k for c in calls_in(b.value) if (k := dotted(c.func)) in owners and k != consumer
                           and a.names.of(k) == "module"), None)
            if frozen is None or _MEANT_FROZEN.search(frozen) or _run_with_recording(a, frozen, None):
                continue
            off = b.ctx.grad_off
            r.add(
                CODE,
                f"`{frozen}` runs under {off.how} (line {off.line}) and its output feeds `{consumer}` (line "
                f"{call.lineno}), which trains: the optimizer is given `{frozen}`'s parameters, but they get no "
                "gradient through it and never change.",
                ast.Pass(lineno=off.line, col_offset=_indent(r, off.line)),
                related=[r.related(b.line, "computed without gradient recording"),
                         r.related(call.lineno, f"`{consumer}` trains on it")],
                hint=f"Run `{frozen}` with gradient recording on; if it is meant to stay frozen, call "
                     f"`{frozen}.requires_grad_(False)` and leave its parameters out of the optimizer.",
            )
            return
