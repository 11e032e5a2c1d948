"""GD501: give the loss the raw scores it expects: the `softmax`/`sigmoid` that the loss applies itself
(`CrossEntropyLoss`, `BCEWithLogitsLoss`) is dropped from the line that applied it."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name

CODE = "GD501"
_SQUASH = ("softmax", "sigmoid")


def edit(finding: Finding, src: Source) -> Change | None:
    calls = [c for c in src.calls_at(finding.line) if callee_name(c) in _SQUASH]
    if len(calls) != 1:
        return None
    call = calls[0]
    func = call.func
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("torch", "F", "functional") \
            or isinstance(func, cst.Attribute) and src.code(func.value).endswith(("nn.functional", "torch.special")):
        if not positional:
            return None
        scores = positional[0].value  # torch.softmax(x, dim=1) -> x
    elif isinstance(func, cst.Attribute):
        scores = func.value  # x.softmax(dim=1) -> x
    else:
        return None
    return Change(f"pass the scores `{src.code(scores)}` without `{callee_name(call)}`", {call: scores})
