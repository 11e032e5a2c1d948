"""GD110: run the forward pass with gradient recording on: the body of the `with torch.no_grad():`
(or `inference_mode()`, `set_grad_enabled(False)`) block that built the loss moves out of the block."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name

CODE = "GD110"
_OFF = ("no_grad", "inference_mode", "set_grad_enabled")


def edit(finding: Finding, src: Source) -> Change | None:
    block = src.statement_at(finding.line)
    if not isinstance(block, cst.With) or len(block.items) != 1 or not isinstance(block.body, cst.IndentedBlock):
        return None
    manager = block.items[0].item
    if not isinstance(manager, cst.Call) or callee_name(manager) not in _OFF or block.items[0].asname is not None:
        return None
    body = list(block.body.body)
    # The block's comments (above it, and after its colon) stay above what it held.
    lead = list(block.leading_lines)
    header = block.body.header.comment
    if header is not None:
        lead.append(cst.EmptyLine(comment=header))
    body[0] = body[0].with_changes(leading_lines=lead + list(body[0].leading_lines))
    return Change(f"run the forward pass out of `{src.code(manager)}`", {block: cst.FlattenSentinel(body)})
