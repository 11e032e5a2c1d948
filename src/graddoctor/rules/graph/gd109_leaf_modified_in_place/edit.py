"""GD109: update the parameter with gradient recording off: the in-place statement on the leaf
(`param -= lr * param.grad`, `p.clamp_(-c, c)`) runs under `with torch.no_grad():`. A write through `.data`,
and an in-place op inside `forward`, get no edit (there the fix is not a grad-mode change)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import walk
from graddoctor.editing.source import Change, Source, expression

CODE = "GD109"


def edit(finding: Finding, src: Source) -> Change | None:
    line = src.statement_at(finding.line)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or not _updates_a_name_in_place(line.body[0]):
        return None
    if any(isinstance(n, cst.Attribute) and n.attr.value == "data" for n in walk(line)):
        return None
    function = src.enclosing(line, cst.FunctionDef)
    if function is not None and function.name.value == "forward":
        return None  # an in-place op of the model's computation: no_grad would silently cut it from the graph
    if not _imports_torch(src):
        return None
    block = cst.With(items=[cst.WithItem(expression("torch.no_grad()"))],
                     body=cst.IndentedBlock(body=[line.with_changes(leading_lines=[])]),
                     leading_lines=line.leading_lines)
    return Change("update it under `torch.no_grad()`", {line: block})


def _updates_a_name_in_place(small: cst.BaseSmallStatement) -> bool:
    """`w -= ...`, `p.clamp_(...)`, `p.add_(...)` on a plain name (the leaf itself, not something derived)."""
    if isinstance(small, cst.AugAssign):
        return isinstance(small.target, cst.Name)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        func = small.value.func
        return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value.endswith("_") \
            and not func.attr.value.startswith("_")
    return False


def _imports_torch(src: Source) -> bool:
    """The file has `import torch` at module level, so `torch.no_grad` is spelled as written here."""
    return any(isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Import)
               and any(a.asname is None and isinstance(a.name, cst.Name) and a.name.value == "torch" for a in s.body[0].names)
               for s in src.tree.body)
