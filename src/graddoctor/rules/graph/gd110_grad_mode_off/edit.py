"""GD110: run the forward pass with gradient recording on: the body of the `with torch.no_grad():`
(or `inference_mode()`, `set_grad_enabled(False)`) block that built the loss moves out of the block; a
`@torch.no_grad()` / `@torch.inference_mode()` decorator on the function that built it is removed."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name

CODE = "GD110"
_OFF = ("no_grad", "inference_mode", "set_grad_enabled")
_DECORATORS = ("no_grad", "inference_mode")  # `@set_grad_enabled(flag)` takes a flag: it may be on


def edit(finding: Finding, src: Source) -> Change | None:
    decorated = _decorator_at(src, finding.line)
    if decorated is not None:
        return decorated
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


def _decorator_at(src: Source, line: int | None) -> Change | None:
    """Removing the grad-mode decorator on `line`: the function then records the graph its caller backpropagates
    (callers that only evaluate still get the same values, with a graph they drop)."""
    found = [d for d in src.nodes(cst.Decorator) if src.lines_of(d)[0] == line]
    if len(found) != 1:
        return None
    decorator = found[0]
    target = decorator.decorator
    name = callee_name(target) if isinstance(target, cst.Call) else (
        target.attr.value if isinstance(target, cst.Attribute) else target.value if isinstance(target, cst.Name) else None)
    if name not in _DECORATORS or (isinstance(target, cst.Call) and target.args):
        return None
    function = src.parent(decorator)
    if not isinstance(function, cst.FunctionDef):
        return None
    # A comment above the removed decorator describes the function: it stays above what is now its first line.
    at = function.decorators.index(decorator)
    kept = list(function.decorators)
    del kept[at]
    if at < len(kept):
        kept[at] = kept[at].with_changes(leading_lines=[*decorator.leading_lines, *kept[at].leading_lines])
        changes = {"decorators": kept}
    elif kept:
        changes = {"decorators": kept, "lines_after_decorators": [*decorator.leading_lines, *function.lines_after_decorators]}
    else:
        changes = {"decorators": [], "lines_after_decorators": [], "leading_lines": [
            *function.leading_lines, *decorator.leading_lines, *function.lines_after_decorators]}
    return Change(f"compute `{function.name.value}()` with gradient recording on (drop `@{src.code(target)}`)",
                  {function: function.with_changes(**changes)})
