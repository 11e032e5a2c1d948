"""GD105: register what the model holds: a plain list/dict of layers becomes `nn.ModuleList`/`nn.ModuleDict`
(also one built in a local first: `self.experts = experts` becomes `nn.ModuleDict(experts)`), a tensor attribute
created with `requires_grad=True` becomes an `nn.Parameter`."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import nn_prefix
from graddoctor.editing.source import Change, Source, expression

CODE = "GD105"


def edit(finding: Finding, src: Source) -> Change | None:
    assign = src.simple_at(finding.line)
    if not isinstance(assign, (cst.Assign, cst.AnnAssign)) or assign.value is None:
        return None
    value, nn = assign.value, nn_prefix(src)
    built = _local_container(src, assign, value) if isinstance(value, cst.Name) else (assign, value)
    if built is not None and isinstance(built[1], (cst.List, cst.ListComp, cst.Dict, cst.DictComp)):
        # nn.ModuleList([nn.Parameter(...)]) raises TypeError: Parameters go to a ParameterList
        held = _elements(src, *built)
        if held is None:
            return None
        kind = "List" if isinstance(built[1], (cst.List, cst.ListComp)) else "Dict"
        wrapper = f"{nn}.{held}{kind}"
    elif isinstance(value, cst.Call) and _requires_grad(value) is not None:
        kept = [a for a in value.args if a is not _requires_grad(value)]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        inner = value.with_changes(args=kept)
        new = cst.Call(func=expression(f"{nn}.Parameter"), args=[cst.Arg(inner)])
        return Change(f"register it as `{nn}.Parameter`", {value: new})
    else:
        return None
    return Change(f"wrap it in `{wrapper}`", {value: cst.Call(func=expression(wrapper), args=[cst.Arg(value)])})


def _local_container(src: Source, assign: cst.CSTNode, name: cst.Name) -> tuple[cst.CSTNode, cst.BaseExpression] | None:
    """(its assignment, the literal) of the local `name` when the function assigns it once, from a list or dict
    literal, before `assign`; None otherwise (a parameter, a name assigned twice: what it holds is not plain)."""
    scope = src.enclosing(assign, cst.FunctionDef)
    if scope is None:
        return None
    found = [a for a in src.nodes(cst.Assign) if src.enclosing(a, cst.FunctionDef) is scope
             and any(isinstance(t.target, cst.Name) and t.target.value == name.value for t in a.targets)]
    if len(found) != 1 or src.lines_of(found[0])[0] >= src.lines_of(assign)[0]:
        return None
    return found[0], found[0].value


def _requires_grad(call: cst.Call) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "requires_grad" and isinstance(arg.value, cst.Name) \
                and arg.value.value == "True":
            return arg
    return None


def _elements(src: Source, assign: cst.CSTNode, value: cst.BaseExpression) -> str | None:
    """"Parameter" when the container holds `nn.Parameter`s, "Module" when it holds layers, else None
    (mixed, or nothing that says): read from its literal, or from what `.append(...)` adds to it later."""
    texts = [src.code(value)]
    if not getattr(value, "elements", None) and isinstance(value, (cst.List, cst.Dict)):
        targets = [t.target for t in getattr(assign, "targets", ())] or [getattr(assign, "target", None)]
        names = {src.code(t) for t in targets if t is not None}
        texts += [src.code(c.args[-1].value) for c in src.nodes(cst.Call)
                  if isinstance(c.func, cst.Attribute) and c.func.attr.value in ("append", "insert") and c.args
                  and src.code(c.func.value) in names]
        # `experts[name] = nn.Sequential(...)`: what a dict is filled with
        texts += [src.code(a.value) for a in src.nodes(cst.Assign) for t in a.targets
                  if isinstance(t.target, cst.Subscript) and src.code(t.target.value) in names]
    calls = [n for text in texts for n in _called(text)]
    params = [n for n in calls if n == "Parameter"]
    modules = [n for n in calls if n != "Parameter" and n[:1].isupper()]
    if params and not modules:
        return "Parameter"
    if modules and not params:
        return "Module"
    return None


def _called(text: str) -> list[str]:
    """The names of the callables called in `text` (`nn.Linear(4, 2)` -> ["Linear"])."""
    try:
        tree = cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return []
    out: list[str] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute):
                out.append(func.attr.value)
            elif isinstance(func, cst.Name):
                out.append(func.value)

    tree.visit(_Calls())
    return out
