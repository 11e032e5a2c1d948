"""GD505: drop the dead ReLU on the model's output: where the first layer whose output is constant is an
`nn.ReLU()` held in an attribute (`self.final = nn.ReLU()`) and applied last (`return self.final(out)`),
the forward returns `out` instead; where it is an `nn.ReLU()` that ends an `nn.Sequential` held in an attribute
(`self.output = nn.Sequential(nn.Linear(32, 1), nn.ReLU())`, the run naming `output.1`), it is removed from
that Sequential. Any other constant layer gets no edit."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import name_of
from graddoctor.editing.source import Change, Source, callee_name

CODE = "GD505"


def edit(finding: Finding, src: Source) -> Change | None:
    line = (finding.evidence or {}).get("first_constant_line")
    stmt = src.statement_at(line) if isinstance(line, int) else None
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or not isinstance(stmt.body[0], cst.Assign):
        return None
    assign = stmt.body[0]
    if len(assign.targets) == 1 and isinstance(assign.value, cst.Call) and callee_name(assign.value) == "Sequential":
        return _sequential_tail(src, assign, str((finding.evidence or {}).get("first_constant", "")))
    if len(assign.targets) != 1 or not isinstance(assign.value, cst.Call) or callee_name(assign.value) != "ReLU":
        return None
    held = name_of(src, assign.targets[0].target)
    applied = [c for c in src.nodes(cst.Call) if held is not None and src.code(c.func) == held]
    if len(applied) != 1 or len(applied[0].args) != 1 or not isinstance(src.parent(applied[0]), cst.Return):
        return None  # applied elsewhere than as the returned output, or several times: not the output's ReLU
    inner = applied[0].args[0].value
    return Change(f"return the output without the dead ReLU `{held}`", {applied[0]: inner})


def _sequential_tail(src: Source, assign: cst.Assign, layer: str) -> Change | None:
    """`self.output = nn.Sequential(..., nn.ReLU())` where the run named the constant layer `output.<last>`."""
    sequential = assign.value
    held, _, index = layer.rpartition(".")
    args = list(sequential.args)
    target = name_of(src, assign.targets[0].target) or ""
    if len(args) < 2 or not index.isdigit() or int(index) != len(args) - 1 or target.rpartition(".")[2] != held.rpartition(".")[2]:
        return None
    applied = [c for c in src.nodes(cst.Call) if src.code(c.func) == target]
    if len(applied) != 1 or not isinstance(src.parent(applied[0]), cst.Return):
        return None  # not the layers that make the model's output: a hidden ReLU feeds layers that were built for it
    last = args[-1].value
    if args[-1].keyword is not None or args[-1].star or not isinstance(last, cst.Call) or callee_name(last) != "ReLU":
        return None
    args[-2] = args[-2].with_changes(comma=args[-1].comma)
    return Change(f"end `{target}` without the dead `{src.code(last)}`", {sequential: sequential.with_changes(args=args[:-1])})
