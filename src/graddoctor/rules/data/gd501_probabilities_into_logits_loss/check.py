"""GD501: a softmax/sigmoid output given straight to a loss that applies its own (or softmax into NLLLoss)."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.analysis.model_outputs import made_by
from graddoctor.lint.reporter import Reporter

CODE = "GD501"
# loss -> (the squashing it must not be given, what the loss wants, the function name shown)
_LOSSES = {
    "cross_entropy": ("softmax", "logits", "cross_entropy"),
    "CrossEntropyLoss": ("softmax", "logits", "CrossEntropyLoss"),
    "nll_loss": ("softmax", "log-probabilities", "nll_loss"),
    "NLLLoss": ("softmax", "log-probabilities", "NLLLoss"),
    "binary_cross_entropy_with_logits": ("sigmoid", "logits", "binary_cross_entropy_with_logits"),
    "BCEWithLogitsLoss": ("sigmoid", "logits", "BCEWithLogitsLoss"),
}
_MODULES = {"Softmax": "softmax", "Sigmoid": "sigmoid"}
_HINTS = {
    "cross_entropy": "Give the loss the logits: drop the softmax (the loss applies its own); apply softmax only to get probabilities for prediction.",
    "nll_loss": "Use `log_softmax` instead of `softmax` before NLLLoss (or give the logits to `cross_entropy`).",
    "binary_cross_entropy_with_logits": "Give the loss the logits: drop the sigmoid, or keep it and use `BCELoss` / `binary_cross_entropy`.",
}


def _loss_kind(a: FileAnalysis, call: ast.Call) -> tuple[str, str, str] | None:
    name = call_name(call)
    if name in _LOSSES and name[0].islower():
        return _LOSSES[name]
    if isinstance(call.func, ast.Call):  # nn.CrossEntropyLoss()(x, y)
        built = call_name(call.func)
        return _LOSSES.get(built) if built[0:1].isupper() else None
    key = dotted(call.func)
    if key and a.names.of(key) == "loss":
        return _LOSSES.get(a.names.cls.get(key, ""))
    return None


def _squashing(expr: ast.expr) -> str | None:
    """'softmax' / 'sigmoid' when `expr` applies one: `torch.softmax(...)`, `x.sigmoid()`, `nn.Softmax(dim=1)`."""
    if not isinstance(expr, ast.Call):
        return None
    name = call_name(expr)
    if name in ("softmax", "sigmoid"):
        return name
    if name in _MODULES and (dotted(expr.func) or "").startswith(("nn.", "torch.nn.", "Softmax", "Sigmoid")):
        return _MODULES[name]
    return None


def check(a: FileAnalysis, r: Reporter) -> None:
    if "softmax" not in a.source.lower() and "sigmoid" not in a.source.lower():
        return
    for call, ctx in a.calls:
        kind = _loss_kind(a, call) if call.args else None
        if kind is None:
            continue
        wanted, wants, shown = kind
        made = made_by(a, ctx.unit, call.args[0], call.lineno, values_only=True)
        if not made or any(_squashing(m) != wanted for m in made):
            continue
        at = made[0]
        key = "cross_entropy" if wants == "logits" and wanted == "softmax" else (
            "nll_loss" if wanted == "softmax" else "binary_cross_entropy_with_logits")
        r.add(
            CODE,
            f"`{shown}` (line {call.lineno}) is given the output of this {wanted}, but it expects {wants}"
            + (": it applies its own " + wanted + ", so the values are squashed twice and the gradients nearly vanish."
               if wants == "logits" else ": probabilities are not log-probabilities, and the loss rewards making them large."),
            at,
            related=[r.related(call.lineno, "the loss that gets it")],
            hint=_HINTS[key],
        )
