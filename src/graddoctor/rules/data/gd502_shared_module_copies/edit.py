"""GD502: fresh layers instead of one layer n times: `[Block(...)] * n` becomes
`[Block(...) for _ in range(n)]`, and `[block] * n` becomes `[copy.deepcopy(block) for _ in range(n)]`."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, expression

CODE = "GD502"


def edit(finding: Finding, src: Source) -> Change | None:
    repeats = [n for n in src.nodes(cst.BinaryOperation) if isinstance(n.operator, cst.Multiply)
               and src.lines_of(n)[0] == finding.line and _parts(n) is not None]
    if len(repeats) > 1 and finding.column:
        # two repeats on one line (`enc, dec = [Block()] * n, [Block()] * n`): the finding's column
        # is where its container is built; its repeat is the first one from there on
        repeats = [n for n in repeats if src.column_of(n) >= finding.column][:1]
    if len(repeats) != 1:
        return None
    product = repeats[0]
    element, count = _parts(product)
    made, imports = src.code(element), []
    if not isinstance(element, cst.Call):
        made, imports = f"copy.deepcopy({made})", ["import copy"]
    fresh = expression(f"[{made} for _ in range({src.code(count)})]")
    return Change(f"make {src.code(count)} fresh copies", {product: fresh}, imports)


def _parts(product: cst.BinaryOperation) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """`[x] * n` or `n * [x]`: (x, n)."""
    for one, other in ((product.left, product.right), (product.right, product.left)):
        if isinstance(one, cst.List) and len(one.elements) == 1 and isinstance(one.elements[0], cst.Element):
            return one.elements[0].value, other
    return None
