"""GD211: evaluate in evaluation mode: `model.eval()` before the evaluation block, `model.train()` after it."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import calls_in, name_of
from graddoctor.editing.source import Change, Source, statement

CODE = "GD211"

# Calls that belong to training: an evaluation block holds none of them.
_TRAINING = ("backward", "step", "zero_grad")


def edit(finding: Finding, src: Source) -> Change | None:
    forward = src.statement_at(finding.line)
    model = _model_called(src, finding.line)
    if forward is None or model is None:
        return None
    block = _evaluation_block(src, forward)
    if block is None or calls_in(src, block, "eval"):
        return None
    switch_off, switch_back = statement(f"{model}.eval()"), statement(f"{model}.train()")

    def put(updated: cst.BaseStatement):
        # Training mode comes back after the evaluation, so the training that follows keeps its dropout
        # and batch statistics; the block's leading comments stay above the new first line.
        lead = getattr(updated, "leading_lines", ())
        return cst.FlattenSentinel([switch_off.with_changes(leading_lines=lead), updated.with_changes(leading_lines=()),
                                    switch_back])

    return Change(f"evaluate `{model}` in eval mode (`{model}.eval()` before, `{model}.train()` after)",
                  {block: put})


def _model_called(src: Source, line: int | None) -> str | None:
    """The model whose forward the finding's line calls: `model(x)`, `self.net(x)`."""
    names = {name_of(src, call.func) for call in src.calls_at(line)}
    names.discard(None)
    candidates = [n for n in names if n.split(".")[-1] not in _NOT_MODELS]
    return candidates[0] if len(candidates) == 1 else None


_NOT_MODELS = {"print", "len", "range", "float", "int", "sum", "max", "min", "zip", "enumerate", "tensor"}


def _evaluation_block(src: Source, stmt: cst.BaseStatement) -> cst.BaseStatement | None:
    """The outermost statement around `stmt`, within its function, that does no training."""
    block = stmt
    node = src.enclosing(stmt, (cst.BaseCompoundStatement,))
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        if any(calls_in(src, node, name) for name in _TRAINING):
            break
        block = node
        node = src.enclosing(node, (cst.BaseCompoundStatement,))
    return block
