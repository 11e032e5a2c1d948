"""GD203: step your optimizer right after the backward (`optimizer.step()`)."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.fix.shape import calls_in, optimizer_name
from graddoctor.fix.source import Change, Source, after, statement

CODE = "GD203"


def edit(finding: Finding, src: Source) -> Change | None:
    backward_stmt = src.statement_at(finding.line)
    calls = calls_in(src, backward_stmt, "backward") if backward_stmt is not None else []
    if not calls or calls_in(src, backward_stmt, "scale"):
        return None  # under a GradScaler the step is scaler.step(opt) + scaler.update(): not guessed
    optimizer = optimizer_name(src, backward_stmt)
    if optimizer is None:
        return None
    return Change(f"call `{optimizer}.step()` after the backward", {backward_stmt: after(statement(f"{optimizer}.step()"))})
