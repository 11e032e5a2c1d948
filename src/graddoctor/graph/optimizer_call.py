"""Fixes that rebuild the user's own optimizer call (GD210): their class, their arguments.

The construction line the session recorded is parsed and only its parameter
argument is rewritten, so an SGD user is told about SGD with their lr and
momentum. When the line cannot be read, the call is rebuilt from the optimizer
object: its class and the hyperparameters that differ from the class defaults.
"""

from __future__ import annotations

import ast
import inspect
import linecache

import torch

from graddoctor.locate import Location


def trainable_only_call(optimizer: torch.optim.Optimizer, created_at: Location) -> str:
    """The user's optimizer construction with only `requires_grad` parameters passed."""
    call = _source_call(created_at)
    if call is not None and call.args and not isinstance(call.args[0], (ast.List, ast.Dict)) \
            and not _is_param_groups(optimizer):
        params = _text(call.args[0])
        others = [_text(a) for a in call.args[1:]] + [_text(k) for k in call.keywords]
        func = _text(call.func)
        generator = f"p for p in {params} if p.requires_grad"
        return f"{func}({generator})" if not others else f"{func}(({generator}), {', '.join(others)})"
    cls = type(optimizer)
    args = ", ".join(f"{k}={v!r}" for k, v in _changed_defaults(optimizer).items())
    head = f"{_class_path(cls)}((p for p in model.parameters() if p.requires_grad)"
    return f"{head}, {args})" if args else f"{head})"


def with_params_call(optimizer: torch.optim.Optimizer, created_at: Location, modules: list[str]) -> str | None:
    """The user's optimizer construction with the parameters of `modules` (expressions) added."""
    call = _source_call(created_at)
    if call is None or not call.args or isinstance(call.args[0], ast.Dict) or _is_param_groups(optimizer):
        return None
    first = call.args[0]
    added = [f"*{m}.parameters()" for m in modules]
    if isinstance(first, ast.List):
        params = "[" + ", ".join([_text(e) for e in first.elts] + added) + "]"
    else:
        params = "[" + ", ".join([f"*{_text(first)}"] + added) + "]"
    others = [_text(a) for a in call.args[1:]] + [_text(k) for k in call.keywords]
    return f"{_text(call.func)}({', '.join([params] + others)})"


def orphan_modules(index, params: list) -> list[str] | None:
    """Expressions for the modules that own `params`: a whole model by its name, else its submodules."""
    out: list[str] = []
    by_owner: dict[str, set[int]] = {}
    for p in params:
        by_owner.setdefault(index.owner.get(id(p), ""), set()).add(id(p))
    for label, ids in by_owner.items():
        owned = {pid for pid, owner in index.owner.items() if owner == label}
        if label.isidentifier() and ids == owned:
            out.append(label)
            continue
        for p in params:
            if id(p) in ids:
                expr = module_expression(index, p)
                if expr is None:
                    return None
                if expr not in out:
                    out.append(expr)
    return out if 0 < len(out) <= 3 else None


def _source_statement(where: Location) -> tuple[ast.Module, str] | None:
    """The statement written at `where` (one or several lines), parsed, with its text."""
    if not where.file or not where.line:
        return None
    text = ""
    for n in range(where.line, where.line + 8):  # a call spread over a few lines
        line = linecache.getline(where.file, n)
        if not line:
            break
        text += line
        try:
            return ast.parse(text.strip()), text.strip()
        except SyntaxError:
            continue
    return None


def _source_call(where: Location) -> ast.Call | None:
    """The optimizer construction call written at `where` (one or several lines)."""
    parsed = _source_statement(where)
    if parsed is None:
        return None
    tree, text = parsed
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    call = next((c for c in calls if _looks_like_optimizer(c)), None)
    if call is not None:
        _written(call, text)
    return call


def assigned_name(where: Location) -> str | None:
    """The name the construction at `where` was assigned to: `opt_g = Adam(...)` -> `opt_g`,
    `self.optimizer = SGD(...)` -> `optimizer`; None for anything else (tuples, subscripts, no assignment).

    Read from the source, not from the frame's locals: on Python < 3.13 reading `f_locals` leaves a
    copy in the frame that keeps the user's tensors alive."""
    parsed = _source_statement(where)
    if parsed is None or len(parsed[0].body) != 1:
        return None
    statement = parsed[0].body[0]
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        target = statement.target
    else:
        return None
    if not isinstance(statement.value, ast.Call):
        return None
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return None


def _written(call: ast.Call, text: str) -> None:
    """Keep each argument as the user wrote it (`lr=1e-3`, not ast.unparse's `lr=0.001`)."""
    elements = call.args[0].elts if call.args and isinstance(call.args[0], ast.List) else []
    for node in [call.func, *call.args, *call.keywords, *elements]:
        node.graddoctor_text = ast.get_source_segment(text, node) or ast.unparse(node)


def _text(node) -> str:
    return getattr(node, "graddoctor_text", None) or ast.unparse(node)


def _looks_like_optimizer(call: ast.Call) -> bool:
    name = _text(call.func).split(".")[-1]
    return name[:1].isupper() and bool(call.args)


def _is_param_groups(optimizer: torch.optim.Optimizer) -> bool:
    return len(optimizer.param_groups) > 1


def _changed_defaults(optimizer: torch.optim.Optimizer) -> dict:
    try:
        signature = inspect.signature(type(optimizer).__init__)
    except (TypeError, ValueError):
        return {}
    out = {}
    for name, value in optimizer.defaults.items():
        parameter = signature.parameters.get(name)
        if parameter is None or parameter.default is inspect.Parameter.empty:
            continue
        try:
            same = bool(parameter.default == value)
        except (RuntimeError, ValueError, TypeError):  # a tensor or array: its truth value is ambiguous
            same = False
        if not same and not isinstance(value, torch.Tensor):
            out[name] = value
    return out


def _class_path(cls: type) -> str:
    module = cls.__module__
    if module.startswith("torch.optim"):
        return f"torch.optim.{cls.__name__}"
    return f"{module}.{cls.__qualname__}"


def module_expression(index, param: torch.Tensor) -> str | None:
    """Python that reaches the module owning `param` from the user's variable: `model[2]`, `net.head`."""
    label = index.owner.get(id(param))
    name = index.names.get(id(param))
    if label is None or name is None or not label.isidentifier():
        return None
    if not name.startswith(label + "."):
        return None
    # Names are the label then named_parameters()' name ("model.fc.weight"): the module path lies between.
    path = name[len(label) + 1:].rpartition(".")[0]
    parts = [p for p in path.split(".") if p]
    return label + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in parts)
