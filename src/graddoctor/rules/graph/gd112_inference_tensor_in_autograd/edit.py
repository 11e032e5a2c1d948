"""GD112: make the cached tensor under `torch.no_grad()` instead: the file's one `torch.inference_mode()` (a
`with` block or a decorator) becomes `torch.no_grad()`, which computes the same values without gradient
recording and makes ordinary tensors that autograd can save. Where the file enters inference mode in more
than one place, which one made the tensor is not guessed: no edit."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name

CODE = "GD112"


def edit(finding: Finding, src: Source) -> Change | None:
    entered = [n for n in src.nodes(cst.Call) if callee_name(n) == "inference_mode" and _enters(src, n)]
    if len(entered) != 1:
        return None
    call = entered[0]
    if call.args:
        return None  # `inference_mode(flag)`: it may be off where it matters
    func = call.func
    new = func.with_changes(attr=cst.Name("no_grad")) if isinstance(func, cst.Attribute) else None
    if new is None:
        return None  # `from torch import inference_mode`: the file may not have `no_grad` by that name
    return Change(f"make it under `{src.code(new)}()` instead of `{src.code(func)}()`", {func: new})


def _enters(src: Source, call: cst.Call) -> bool:
    """The call is what a `with` enters or what decorates a function (not a mention elsewhere)."""
    parent = src.parent(call)
    return isinstance(parent, (cst.WithItem, cst.Decorator))
