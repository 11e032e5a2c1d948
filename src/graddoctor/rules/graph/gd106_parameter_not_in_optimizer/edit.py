"""GD106: build the optimizer after the layers are replaced: its construction moves below the last
assignment that replaces a submodule of the model it was given (`model.fc = nn.Linear(...)`)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import name_of, siblings
from graddoctor.editing.source import Change, Source, after, callee_name, moving

CODE = "GD106"


def edit(finding: Finding, src: Source) -> Change | None:
    # at the replacing line, the finding's cause names the optimizer's own line
    built = src.statement_at((finding.cause or {}).get("optimizer_line", finding.line))
    if not isinstance(built, cst.SimpleStatementLine) or len(built.body) != 1:
        return None
    models = {name_of(src, c.func.value) for c in src.nodes(cst.Call)
              if callee_name(c) in ("parameters", "named_parameters") and isinstance(c.func, cst.Attribute)
              and src.statement_of(c) is built}
    models.discard(None)
    if len(models) != 1:
        return None
    model = models.pop()
    body = siblings(src, built)
    later = body[body.index(built) + 1:] if built in body else []
    replaced = [s for s in later if _replaces_part_of(src, s, model)]
    if not replaced:
        return None  # the optimizer was given a subset: which parameters were meant is not guessed
    return Change(f"build the optimizer after `{model}` is changed",
                  {built: cst.RemoveFromParent(), replaced[-1]: after(moving(built))})


def _replaces_part_of(src: Source, stmt: cst.BaseStatement, model: str) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        if isinstance(small, cst.Assign):
            for target in small.targets:
                if isinstance(target.target, cst.Attribute) and src.code(target.target).startswith(model + "."):
                    return True
    return False
