"""GD506: tell the sequence layer its input is batch first: `batch_first=True` where the layer is built; an initial
state sized from the input's old batch dimension (`torch.zeros(1, x.size(1), 64)`) is sized from the new one
(`x.size(0)`). Where the code around the layer transposes or indexes for the old layout, no edit is made."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import inside, name_of, walk
from graddoctor.editing.source import Change, Source, callee_name, with_keyword

CODE = "GD506"

_LAYERS = ("RNN", "LSTM", "GRU", "MultiheadAttention", "Transformer", "TransformerEncoderLayer",
           "TransformerDecoderLayer")
_REORDER = ("transpose", "permute", "t", "swapaxes", "movedim")


def edit(finding: Finding, src: Source) -> Change | None:
    layers = [c for c in src.calls_at(finding.line) if callee_name(c) in _LAYERS]
    if len(layers) != 1:
        return None  # two layers built on one line: which one was fed batch-first is not guessed
    replacement = with_keyword(layers[0], "batch_first", "True")
    if not replacement:
        return None
    assign = src.parent(layers[0])
    held = name_of(src, assign.targets[0].target) if isinstance(assign, cst.Assign) and len(assign.targets) == 1 else None
    uses = [c for c in src.nodes(cst.Call) if held is not None and src.code(c.func) == held]
    if held is None or not uses:
        return None  # where the layer is called is not known: its surroundings cannot be checked
    for use in uses:
        fixed = _around_call(src, use, callee_name(layers[0]) in ("RNN", "LSTM", "GRU"))
        if fixed is None:
            return None
        replacement.update(fixed)
    sized = " and its initial state's batch size" if len(replacement) > 1 else ""
    return Change(f"build the {callee_name(layers[0])} with `batch_first=True`{sized}", replacement)


def _around_call(src: Source, call: cst.Call, recurrent: bool) -> dict | None:
    """Replacements that move the code around one call of the layer to the batch-first layout; None when
    that code was written for the old layout in a way not rewritten here (a transpose, `out[-1]`)."""
    function = src.enclosing(call, cst.FunctionDef) or src.tree
    if any(callee_name(c) in _REORDER for c in src.nodes(cst.Call) if inside(src, c, function)):
        return None
    if not call.args or call.args[0].keyword is not None:
        return None
    data = src.code(call.args[0].value)
    results = _result_names(src, call)
    for node in src.nodes(cst.Subscript):
        if inside(src, node, function) and isinstance(node.value, cst.Name) and node.value.value in results \
                and len(node.slice) == 1 and src.code(node.slice[0]) == "-1":
            return None  # `out[-1]`: the last time step in the old layout, the last sample in the new one
    out: dict = {}
    for state in call.args[1:2] if recurrent else ():
        names = [n.value for n in walk(state.value) if isinstance(n, cst.Name)]
        for node in src.nodes(cst.Call):
            if not inside(src, node, function) or not _assigns_one_of(src, node, names):
                continue
            for size in walk(node):
                old = _old_batch_size(src, size, data)
                if old is not None:
                    out[old] = cst.Integer("0")
    return out


def _old_batch_size(src: Source, node: cst.CSTNode, data: str) -> cst.CSTNode | None:
    """The `1` of `x.size(1)` / `x.shape[1]`, where `x` is the layer's input."""
    if isinstance(node, cst.Call) and callee_name(node) == "size" and isinstance(node.func, cst.Attribute) \
            and src.code(node.func.value) == data and len(node.args) == 1 and src.code(node.args[0].value) == "1":
        return node.args[0].value
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape" \
            and src.code(node.value.value) == data and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and src.code(index.value) == "1":
            return index.value
    return None


def _assigns_one_of(src: Source, call: cst.Call, names: list[str]) -> bool:
    parent = src.parent(call)
    while parent is not None and not isinstance(parent, (cst.Assign, cst.BaseStatement)):
        parent = src.parent(parent)
    return isinstance(parent, cst.Assign) and any(
        isinstance(n, cst.Name) and n.value in names for t in parent.targets for n in walk(t.target))


def _result_names(src: Source, call: cst.Call) -> set[str]:
    """`out` of `out, _ = self.lstm(x)` / `out = self.lstm(x)[0]`."""
    parent = src.parent(call)
    while parent is not None and not isinstance(parent, (cst.Assign, cst.BaseStatement)):
        parent = src.parent(parent)
    if not isinstance(parent, cst.Assign):
        return set()
    first = parent.targets[0].target
    if isinstance(first, (cst.Tuple, cst.List)) and first.elements:
        first = first.elements[0].value
    return {first.value} if isinstance(first, cst.Name) else set()
