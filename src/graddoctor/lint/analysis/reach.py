"""Which functions of a file run with gradient recording on when they run, as far as the file shows.

A helper that edits parameters in place, or collects model outputs, is harmless when
every caller runs it under `no_grad`, and a bug when one caller does not. The file
shows its own callers: a function is reached with gradients on when this file calls it
(from elsewhere than its own body: a recursive call is no way in), or hands it on
(`self.apply(self._init_weights)`, `callbacks=[clip]`), somewhere with gradient recording on. The module body always runs so. A function decorated with
`no_grad` is reached like any other; its own body is marked as running without
gradients, which the checks read from each statement's context.
"""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis


def reached_with_grad(a: FileAnalysis) -> set[int]:
    """Units (by id) that this file runs, or hands on to be run, with gradients on (cached on `a`)."""
    cached = a.__dict__.get("_reached_with_grad")
    if cached is not None:
        return cached
    named: dict[str, list[int]] = {}
    for unit in a.units:
        if isinstance(unit.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            named.setdefault(unit.node.name, []).append(id(unit))
    out = {id(u) for u in a.units if isinstance(u.node, ast.Module)}
    for call, ctx in a.calls:
        if ctx.grad_off is not None:
            continue
        for node in [call.func, *call.args, *(k.value for k in call.keywords)]:
            text = node.attr if type(node) is ast.Attribute else node.id if type(node) is ast.Name else None
            if text in named:
                # a recursive call runs in whatever mode the outer call had: it is no way in
                out.update(u for u in named[text] if u != id(ctx.unit))
    a._reached_with_grad = out  # type: ignore[attr-defined]
    return out
