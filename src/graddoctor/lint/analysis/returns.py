"""What a call to one of this file's own functions gives back: its `return` values, in its own unit.

`loss = episode_loss(log_probs, rewards)` is followed into `episode_loss` to the
expression it returns, and `loss, value = compute(batch)` to the matching item
of a returned tuple, so a loss made in a helper is judged like one made inline.
"""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis, Unit

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def local_callee(a: FileAnalysis, call: ast.Call, unit: Unit) -> ast.AST | None:
    """The function of this file (or method of the caller's class) that `call` runs."""
    func = call.func
    if type(func) is ast.Name:
        return a.functions.get(func.id)
    if type(func) is ast.Attribute and unit.cls is not None and type(func.value) is ast.Name and func.value.id == "self":
        return unit.cls.methods.get(func.attr)
    return None


def returned(a: FileAnalysis, function: ast.AST) -> list[ast.Return]:
    """The function's own `return X` statements (not those of functions nested in it), cached on `a`."""
    memo = a.__dict__.setdefault("_returns", {})
    found = memo.get(id(function))
    if found is None:
        found = memo[id(function)] = []
        stack = list(function.body)
        while stack:
            node = stack.pop()
            if type(node) is ast.Return:
                if node.value is not None and not (type(node.value) is ast.Constant and node.value.value is None):
                    found.append(node)
            elif isinstance(node, ast.stmt) and not isinstance(node, _NESTED):
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    stack.extend(getattr(node, field, ()))
            elif type(node) in (ast.ExceptHandler, ast.match_case):
                stack.extend(node.body)
        found.sort(key=lambda r: r.lineno)
    return found


def returned_value(a: FileAnalysis, call: ast.Call, unit: Unit, index: int | None = None) -> tuple[ast.expr, int, Unit] | None:
    """The last value the callee returns (its `index`-th item when unpacked), with its line and unit."""
    function = local_callee(a, call, unit)
    if function is None:
        return None
    inner = a.method_unit(function)
    if inner is None:
        return None
    for ret in reversed(returned(a, function)):
        value = ret.value
        if index is None:
            return value, ret.lineno, inner
        if type(value) is ast.Tuple and index < len(value.elts) and not any(type(e) is ast.Starred for e in value.elts):
            return value.elts[index], ret.lineno, inner
    return None


def unpacked_index(stmt: ast.stmt, name: str) -> int | None:
    """`loss, logits = train_step(...)`: the position of `name` among the unpacked targets.

    None when the statement does not unpack; -1 when it does but not plainly (a starred or nested target).
    """
    for target in getattr(stmt, "targets", ()):
        if isinstance(target, (ast.Tuple, ast.List)):
            for i, elt in enumerate(target.elts):
                if type(elt) is ast.Starred:
                    return -1
                if type(elt) is ast.Name and elt.id == name:
                    return i
            return -1
    return None
