"""GD502: `[block] * n`, `[block for _ in range(n)]` or `{task: head for task in tasks}`: one module object
repeated in a list (or under every key of a dict) of layers."""

from __future__ import annotations

import ast
import re

from graddoctor.lint.analysis.model import FileAnalysis, Unit
from graddoctor.lint.analysis.names import call_name, dotted, strip_to
from graddoctor.lint.analysis.returns import passed_to
from graddoctor.lint.analysis.scan import covers, lines_matching
from graddoctor.rules.graph.gd105_unregistered_parameter.check import PARAMETER_FREE
from graddoctor.lint.reporter import Reporter

CODE = "GD502"
_CONTAINERS = frozenset({"ModuleList", "Sequential", "ModuleDict"})


def _module_object(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, in_container: bool,
                   depth: int = 2) -> str | None:
    """What `expr` is when it is one module object with parameters: its source text; else None."""
    expr = strip_to(expr)
    if isinstance(expr, ast.Call):
        kind = a.names.classify_call(expr)
        return a.segment(expr) if kind == "module" and call_name(expr) not in PARAMETER_FREE else None
    key = dotted(expr)
    if key is None:
        return None
    b = a.binding_before(unit, key, line)
    built = strip_to(b.value) if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) else None
    if isinstance(built, ast.Call):
        if a.names.classify_call(built) == "module":
            return None if call_name(built) in PARAMETER_FREE else key
        return None
    if in_container:
        return key  # inside nn.ModuleList(...): surely a module
    if b is None and type(expr) is ast.Name and depth > 0:
        # `make_blocks(block, n)` returning `[block for _ in range(n)]`: a parameter that every call
        # site gives one module object, in a container or built there (`nn.Sequential(...)`)
        passed = passed_to(a, unit, key)
        if passed and all(_module_object(a, caller, given, at, _in_container_call(a, caller, at, given), depth - 1)
                          for given, at, caller in passed):
            return key
    return None


def _in_container_call(a: FileAnalysis, unit: Unit, line: int, given: ast.expr) -> bool:
    """Whether the call that passes `given` on `line` is itself an argument of `nn.ModuleList(...)` and the like."""
    for call, ctx in a.calls:
        if ctx.unit is unit and call.lineno == line and call_name(call) in _CONTAINERS:
            if any(any(n is given for n in ast.walk(arg)) for arg in call.args):
                return True
    return False


def _inside_container(parents: dict[int, ast.AST], node: ast.AST) -> bool:
    up = parents.get(id(node))
    for _ in range(3):
        if up is None:
            return False
        if isinstance(up, ast.Call) and call_name(up) in _CONTAINERS:
            return True
        up = parents.get(id(up))
    return False


def _repeated(a: FileAnalysis, unit: Unit, node: ast.AST, inside: bool) -> str | None:
    """The repeated module's text for `[m] * n` / `n * [m]` / `(m,) * n` / `[m for _ in range(n)]` /
    `{k: m for k in keys}`, else None.

    A tuple repeats like a list: `nn.Sequential(*(block,) * n)` is n references to one block.
    """
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for seq, other in ((node.left, node.right), (node.right, node.left)):
            if isinstance(seq, (ast.List, ast.Tuple)) and seq.elts and not isinstance(other, (ast.List, ast.Tuple)):
                for elt in seq.elts:
                    found = _module_object(a, unit, elt, node.lineno, inside)
                    if found:
                        return found
    elif isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.DictComp)):
        elt = node.value if isinstance(node, ast.DictComp) else node.elt
        if not isinstance(elt, (ast.Name, ast.Attribute)):
            return None  # a call builds a new module per entry; `heads[k]` picks one per key
        bound = {dotted(t) for g in node.generators for t in ast.walk(g.target) if isinstance(t, ast.Name)}
        key = dotted(elt)
        if key and key.split(".")[0] not in bound:
            return _module_object(a, unit, elt, node.lineno, inside)
    return None


# Candidate lines: `[...] * n`, `n * [...]`, `(m,) * n`, `n * (m,)`, `[name for ...]`, `(name for ...)`,
# `{key: name for ...}` (the shapes `_repeated` judges).
_SHAPES = re.compile(r"\]\s*\*|\*\s*\[|,\s*\)\s*\*|\*\s*\(|[\[(]\s*[\w.]+\s+for\s|\{[^:\n]+:\s*[\w.]+\s+for\s")


_SHARE_WORDS = re.compile(r"shar(?:e|ed|ing)|(?:^|[._])tie(?:d|_|$)|tying", re.IGNORECASE)


def _sharing_meant(a: FileAnalysis, parents: dict[int, ast.AST], node: ast.AST, found: str) -> bool:
    """`[shared_bbox] * n`, or under `if config.share_bbox_head:`: the code says the weights are shared on purpose."""
    if _SHARE_WORDS.search(found):
        return True
    up = parents.get(id(node))
    while up is not None:
        if isinstance(up, ast.If) and _SHARE_WORDS.search(a.segment(up.test) or ""):
            return True
        up = parents.get(id(up))
    return False


def check(a: FileAnalysis, r: Reporter) -> None:
    if "*" not in a.source and " for " not in a.source:
        return
    lines = lines_matching(a.source, _SHAPES)
    if not lines:
        return
    for unit in a.units:
        for stmt in unit.node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue  # their bodies are units of their own
            if not covers(lines, stmt.lineno, stmt.end_lineno or stmt.lineno):
                continue
            parents: dict[int, ast.AST] = {}
            for parent in ast.walk(stmt):
                for child in ast.iter_child_nodes(parent):
                    parents[id(child)] = parent
                if not isinstance(parent, (ast.BinOp, ast.ListComp, ast.GeneratorExp, ast.DictComp)):
                    continue
                found = _repeated(a, unit, parent, _inside_container(parents, parent))
                if found is None or _sharing_meant(a, parents, parent, found):
                    continue
                how = ("`[...] * n`" if isinstance(parent, ast.BinOp) else
                       "a dict comprehension that puts it under every key" if isinstance(parent, ast.DictComp) else
                       "a comprehension that yields it each time")
                r.add(
                    CODE,
                    f"`{r.segment(parent)}` repeats one module object (`{found}`) with {how}: the entries are the "
                    "same layer, so the n \"layers\" share one set of weights.",
                    parent,
                    hint="Build a new module per entry: `[Block(...) for _ in range(n)]` (or `copy.deepcopy(block)` "
                         "per entry); to share weights on purpose, keep one module and call it n times in `forward`.",
                )
