"""GD203: step your optimizer right after the backward (`optimizer.step()`; under a GradScaler,
`scaler.step(optimizer)` then `scaler.update()`)."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.editing.shape import calls_in, name_of, optimizer_name
from graddoctor.editing.source import Change, Source, after, receiver, statement

CODE = "GD203"


def edit(finding: Finding, src: Source) -> Change | None:
    backward_stmt = src.statement_at(finding.line)
    calls = calls_in(src, backward_stmt, "backward") if backward_stmt is not None else []
    if not calls:
        return None
    optimizer = optimizer_name(src, backward_stmt)
    if optimizer is None:
        return None
    scaled = {name_of(src, receiver(c)) for c in calls_in(src, backward_stmt, "scale")}
    if scaled:
        scaler = scaled.pop()
        if scaler is None or scaled:
            return None
        return Change(f"call `{scaler}.step({optimizer})` and `{scaler}.update()` after the backward",
                      {backward_stmt: after(statement(f"{scaler}.step({optimizer})"), statement(f"{scaler}.update()"))})
    return Change(f"call `{optimizer}.step()` after the backward", {backward_stmt: after(statement(f"{optimizer}.step()"))})
