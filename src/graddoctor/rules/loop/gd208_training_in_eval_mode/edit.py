"""GD208: train in training mode: `model.train()` at the top of the loop that steps the optimizer, for the
model that optimizer was built from (`optimizer = SGD(model.parameters())`)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import calls_in, optimized_model, stepped_optimizer
from graddoctor.editing.source import Change, Source, before, statement

CODE = "GD208"


def edit(finding: Finding, src: Source) -> Change | None:
    step = src.statement_at(finding.line)
    loop = src.enclosing(step, (cst.For, cst.While)) if step is not None else None
    if loop is None or not isinstance(loop.body, cst.IndentedBlock):
        return None
    steps = calls_in(src, step, "step")
    optimizer = stepped_optimizer(src, steps[0]) if steps else None
    model = optimized_model(src, optimizer) if optimizer else None
    if model is None:
        return None  # the optimizer's model is not named in this file: which one trains is not guessed
    return Change(f"call `{model}.train()` at the top of the training loop",
                  {loop.body.body[0]: before(statement(f"{model}.train()"))})
