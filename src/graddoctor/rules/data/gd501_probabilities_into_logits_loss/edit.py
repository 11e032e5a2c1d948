"""GD501: give the loss what it expects: the `softmax`/`sigmoid` that `CrossEntropyLoss` / `BCEWithLogitsLoss`
apply themselves is dropped from the line that applied it; before `NLLLoss` the `softmax` becomes `log_softmax`
(an `nn.Softmax` module becomes `nn.LogSoftmax`). An `nn.Softmax`/`nn.Sigmoid` that ends an `nn.Sequential`
is removed from it (before `NLLLoss`: `nn.LogSoftmax`)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name

CODE = "GD501"
_SQUASH = ("softmax", "sigmoid")
_MODULES = {"Softmax": "softmax", "Sigmoid": "sigmoid"}
_FUNCTION_HOMES = ("torch", "F", "functional")


def edit(finding: Finding, src: Source) -> Change | None:
    loss = (finding.evidence or {}).get("loss")
    if loss not in ("cross_entropy", "nll_loss", "binary_cross_entropy_with_logits"):
        return None  # the run did not say which loss got the values: the right edit depends on it
    tail = _sequential_tail(src, finding.line)
    if tail is not None:
        return _drop_tail(src, *tail, loss)
    candidates = [(c, kind) for c in src.calls_at(finding.line) if (kind := _squash_of(src, c)) is not None]
    if len(candidates) != 1:
        return None
    call, (kind, scores, module_attr) = candidates[0]
    if loss == "nll_loss":
        return _log_softmax(src, call, kind, module_attr)
    if scores is None:
        return None
    return Change(f"pass the scores `{src.code(scores)}` without `{kind}`", {call: scores})


def _sequential_tail(src: Source, line: int | None) -> tuple[cst.Call, cst.Call] | None:
    """(the `nn.Sequential(...)` call, its last layer) when the layer on `line` is an `nn.Softmax(...)` /
    `nn.Sigmoid()` written as the last argument of that Sequential."""
    for layer in src.calls_at(line):
        if callee_name(layer) not in _MODULES:
            continue
        arg = src.parent(layer)
        sequential = src.parent(arg) if isinstance(arg, cst.Arg) else None
        if isinstance(sequential, cst.Call) and callee_name(sequential) == "Sequential" and sequential.args[-1] is arg \
                and arg.keyword is None and not arg.star and len(sequential.args) > 1:
            return sequential, layer
    return None


def _drop_tail(src: Source, sequential: cst.Call, layer: cst.Call, loss: str) -> Change | None:
    kind = _MODULES[callee_name(layer)]
    if loss == "nll_loss":
        if kind != "softmax" or not isinstance(layer.func, cst.Attribute):
            return None
        return Change("end the model with `LogSoftmax`: NLLLoss expects log-probabilities",
                      {layer.func: layer.func.with_changes(attr=cst.Name("LogSoftmax"))})
    if (kind == "softmax") != (loss == "cross_entropy"):
        return None
    args = list(sequential.args)
    # The new last layer ends as the removed one did (its trailing comma and the line break before `)`).
    args[-2] = args[-2].with_changes(comma=args[-1].comma)
    return Change(f"end the model without `{src.code(layer)}`: the loss applies it itself",
                  {sequential: sequential.with_changes(args=args[:-1])})


def _squash_of(src: Source, call: cst.Call):
    """(kind, the scores it squashes, the module attribute when it is an `nn.Softmax` module) or None.

    `self.softmax(logits)` is a call of a module held in an attribute, not `Tensor.softmax`: what the
    name is comes from its assignment (`self.softmax = nn.Softmax(dim=1)`), never from its spelling.
    """
    func = call.func
    positional = [a for a in call.args if a.keyword is None and not a.star]
    module = _module_kind(src, func)
    if module is not None:
        return (module, positional[0].value if len(positional) == 1 else None, func)
    name = callee_name(call)
    if name not in _SQUASH or not isinstance(func, cst.Attribute):
        return None
    home = src.code(func.value)
    if home in _FUNCTION_HOMES or home.endswith(("nn.functional", "torch.special")):
        return (name, positional[0].value if positional else None, None)  # torch.softmax(x, dim=1) -> x
    if _is_module_name(src, func):
        return None  # an attribute or name assigned something other than a Softmax module: not guessed
    return (name, func.value, None)  # x.softmax(dim=1) -> x


def _module_kind(src: Source, func: cst.BaseExpression) -> str | None:
    """"softmax" when `func` names an attribute or variable assigned `nn.Softmax(...)` in this file."""
    kinds = {_MODULES.get(callee_name(v) or "") if isinstance(v, cst.Call) else None for v in _assigned(src, func)}
    if len(kinds) == 1:
        return kinds.pop()
    return None


def _is_module_name(src: Source, func: cst.Attribute) -> bool:
    """`self.softmax` (the whole callee) is assigned somewhere in the file: a module, not a tensor method."""
    return bool(_assigned(src, func))


def _assigned(src: Source, target: cst.BaseExpression) -> list[cst.BaseExpression]:
    text = src.code(target)
    out = []
    for node in src.nodes(cst.Assign):
        if any(src.code(t.target) == text for t in node.targets):
            out.append(node.value)
    return out


def _log_softmax(src: Source, call: cst.Call, kind: str, module_attr) -> Change | None:
    """Before `nll_loss`: log-probabilities, by the same call spelled `log_softmax` (a module: `LogSoftmax`)."""
    if kind != "softmax":
        return None
    if module_attr is not None:
        built = [v for v in _assigned(src, module_attr) if isinstance(v, cst.Call)]
        if len(built) != 1 or not isinstance(built[0].func, (cst.Attribute, cst.Name)):
            return None
        func = built[0].func
        renamed = func.with_changes(attr=cst.Name("LogSoftmax")) if isinstance(func, cst.Attribute) else cst.Name("LogSoftmax")
        return Change(f"build `{src.code(module_attr)}` as `LogSoftmax`: NLLLoss expects log-probabilities",
                      {func: renamed})
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "softmax":
        return None
    return Change("take `log_softmax`: NLLLoss expects log-probabilities", {func.attr: cst.Name("log_softmax")})
