"""GD213: in a loop, one optimizer's gradients are cleared, backward runs, and another optimizer steps,
while the first optimizer is stepped nowhere in the file."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted, item_key
from graddoctor.lint.reporter import Reporter

CODE = "GD213"


def _stepped_or_handed_on(a: FileAnalysis, optimizers: set[str]) -> set[str]:
    """Optimizers that may step: `opt.step()` anywhere, or the optimizer given to any call (a helper,
    `scaler.step(opt)`, `accelerator.prepare(opt)`) or stored under another name.

    An optimizer kept in a container (`self.optimizers["d"]`) is named by its item; the container
    used any other way than by a constant key (`for opt in self.optimizers.values()`, handed to a
    call) may step every optimizer it holds."""
    out = set()
    for call, _ in a.calls:
        if call_name(call) == "step" and isinstance(call.func, ast.Attribute):
            out.add(item_key(call.func.value) or dotted(call.func.value))
        for arg in list(call.args) + [k.value for k in call.keywords]:
            for node in ast.walk(arg):
                if isinstance(node, (ast.Name, ast.Attribute)) and dotted(node) in optimizers:
                    out.add(dotted(node))
                elif type(node) is ast.Subscript and item_key(node) in optimizers:
                    out.add(item_key(node))
    by_key: set[int] = set()
    for node in ast.walk(a.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)):
            out.add(item_key(node.value) or dotted(node.value))
        if type(node) is ast.Subscript and item_key(node) is not None:
            by_key.add(id(node.value))
    containers = a.names.containers
    if containers:
        for node in ast.walk(a.tree):
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and id(node) not in by_key:
                out.update(containers.get(dotted(node), ()))
    return out & optimizers


def check(a: FileAnalysis, r: Reporter) -> None:
    if "zero_grad" not in a.source or "backward" not in a.source:
        return
    optimizers = {name for name, kind in a.names.kind.items() if kind == "optimizer"}
    if len(optimizers) < 2:
        return
    idle = optimizers - _stepped_or_handed_on(a, optimizers)
    if not idle:
        return
    reported: set[int] = set()
    for it in iterations(a):
        # a loop, or one function's body (a `train_step` method that a loop elsewhere calls)
        since: list = []  # the plain events since the iteration's last step
        for event in it.events:
            if event.conditional or event.nested:
                since = []
                continue
            if event.kind != "step":
                since.append(event)
                continue
            zeroed = [e for e in since if e.kind == "zero_grad" and e.target in idle]
            backward = [e for e in since if e.kind == "backward"]
            own_zero = any(e.kind == "zero_grad" and e.target == event.target for e in since)
            since = []
            if event.target not in optimizers or not zeroed or not backward or own_zero or id(event.node) in reported:
                continue
            reported.add(id(event.node))
            mine = zeroed[-1].target
            r.add(CODE,
                  f"`{mine}.zero_grad()` (line {zeroed[-1].line}) and backward() (line {backward[-1].line}) prepare "
                  f"gradients for `{mine}`, but `{event.target}.step()` runs here, and `{mine}` is stepped nowhere "
                  "in this file: its parameters never change.",
                  event.node,
                  related=[r.related(backward[-1].line, f"the backward whose gradients `{mine}` should apply"),
                           r.related(zeroed[-1].line, f"`{mine}`'s gradients cleared here, and never used")],
                  hint=f"Call `{mine}.step()` here instead of `{event.target}.step()`.")
