"""GD213: in a loop, one optimizer's gradients are cleared, backward runs, and another optimizer steps,
while the first optimizer is stepped nowhere in the file."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.reporter import Reporter

CODE = "GD213"


def _stepped_or_handed_on(a: FileAnalysis, optimizers: set[str]) -> set[str]:
    """Optimizers that may step: `opt.step()` anywhere, or the optimizer given to any call (a helper,
    `scaler.step(opt)`, `accelerator.prepare(opt)`) or stored under another name."""
    out = set()
    for call, _ in a.calls:
        if call_name(call) == "step" and isinstance(call.func, ast.Attribute):
            out.add(dotted(call.func.value))
        for arg in list(call.args) + [k.value for k in call.keywords]:
            for node in ast.walk(arg):
                if isinstance(node, (ast.Name, ast.Attribute)) and dotted(node) in optimizers:
                    out.add(dotted(node))
    for node in ast.walk(a.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Name, ast.Attribute)):
            out.add(dotted(node.value))
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
    for it in iterations(a):
        if it.kind != "loop":
            continue
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
            if event.target not in optimizers or not zeroed or not backward or own_zero:
                continue
            mine = zeroed[-1].target
            r.add(CODE,
                  f"`{mine}.zero_grad()` (line {zeroed[-1].line}) and backward() (line {backward[-1].line}) prepare "
                  f"gradients for `{mine}`, but `{event.target}.step()` runs here, and `{mine}` is stepped nowhere "
                  "in this file: its parameters never change.",
                  event.node,
                  related=[r.related(backward[-1].line, f"the backward whose gradients `{mine}` should apply"),
                           r.related(zeroed[-1].line, f"`{mine}`'s gradients cleared here, and never used")],
                  hint=f"Call `{mine}.step()` here instead of `{event.target}.step()`.")
