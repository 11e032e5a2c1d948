"""What edits read from the user's code: the statements around a line, the loop's backward and step, the
optimizer's and scaler's variable names, how `torch.nn` is spelled in the file.

Each answer is None when the code does not say it plainly: an edit that would have to guess is not made.
"""

from __future__ import annotations

import libcst as cst

from graddoctor.editing.source import Source, callee_name, receiver

_OPTIMIZER_CLASSES = {
    "SGD", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta", "RMSprop", "Rprop", "NAdam", "RAdam", "LBFGS",
    "SparseAdam", "ASGD", "Adafactor",
}


def siblings(src: Source, stmt: cst.BaseStatement) -> list[cst.BaseStatement]:
    """The statements of the block that holds `stmt`, in order."""
    parent = src.parent(stmt)
    body = getattr(parent, "body", None)
    return list(body) if isinstance(body, (list, tuple)) else []


def calls_in(src: Source, node: cst.CSTNode, method: str) -> list[cst.Call]:
    """Calls of `method` inside `node` (`x.method(...)` or `method(...)`), in source order."""
    return sorted(src.calls_within(method, node), key=lambda c: src.lines_of(c))


def first_calling(src: Source, stmts: list[cst.BaseStatement], method: str) -> cst.BaseStatement | None:
    for stmt in stmts:
        if calls_in(src, stmt, method):
            return stmt
    return None


def last_calling(src: Source, stmts: list[cst.BaseStatement], method: str) -> cst.BaseStatement | None:
    return first_calling(src, list(reversed(stmts)), method)


def name_of(src: Source, node: cst.CSTNode | None) -> str | None:
    """The dotted name text of a plain variable or attribute (`optimizer`, `self.opt`), else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and name_of(src, node.value) is not None:
        return src.code(node)
    return None


def stepped_optimizer(src: Source, step: cst.Call) -> str | None:
    """`opt.step()` -> "opt"; `scaler.step(opt)` -> "opt"."""
    if step.args and isinstance(receiver(step), (cst.Name, cst.Attribute)) and _is_scaler_call(src, step):
        return name_of(src, step.args[0].value)
    return name_of(src, receiver(step))


def optimizer_name(src: Source, near: cst.CSTNode) -> str | None:
    """The optimizer the code around `near` uses: the one built in the file, when there is exactly one;
    else the one whose `zero_grad()`/`step()` is called in the same loop."""
    built = {t for t in _assigned_from(src, _is_optimizer_call) if t}
    if len(built) == 1:
        return built.pop()
    loop = src.enclosing(near, (cst.For, cst.While)) or src.tree
    used = {name_of(src, receiver(c)) for m in ("zero_grad", "step") for c in calls_in(src, loop, m)
            if not _is_scaler_call(src, c)}
    used.discard(None)
    if built:
        used &= built
    return used.pop() if len(used) == 1 else None


def scaler_name(src: Source, near: cst.CSTNode) -> str | None:
    """The GradScaler of the loop around `near` (`scaler.scale(loss)`), when there is one."""
    loop = src.enclosing(near, (cst.For, cst.While)) or src.tree
    names = {name_of(src, receiver(c)) for c in calls_in(src, loop, "scale")}
    names.discard(None)
    return names.pop() if len(names) == 1 else None


def nn_prefix(src: Source) -> str:
    """How the file spells `torch.nn`: `nn` after `from torch import nn` / `import torch.nn as nn`."""
    for node in src.nodes((cst.ImportFrom, cst.Import)):
        code = src.code(node)
        if code.startswith("from torch import") and any(_alias(a) == "nn" for a in node.names if isinstance(node.names, (list, tuple))):
            return "nn"
        if "import torch.nn as nn" in code:
            return "nn"
    return "torch.nn"


def _alias(alias: cst.ImportAlias) -> str | None:
    name = alias.asname.name if alias.asname else alias.name
    return name.value if isinstance(name, cst.Name) else None


def _assigned_from(src: Source, test) -> list[str | None]:
    out = []
    for node in src.nodes(cst.Assign):
        if isinstance(node.value, cst.Call) and test(node.value) and len(node.targets) == 1:
            out.append(name_of(src, node.targets[0].target))
    return out


def _is_optimizer_call(call: cst.Call) -> bool:
    return callee_name(call) in _OPTIMIZER_CLASSES


def _is_scaler_call(src: Source, call: cst.Call) -> bool:
    """`scaler.step(opt)`: a GradScaler's step, which takes the optimizer as its argument."""
    if callee_name(call) != "step" or not call.args:
        return False
    scalers = {name_of(src, receiver(c)) for c in src.nodes(cst.Call) if callee_name(c) == "scale"}
    scalers.update(_assigned_from(src, lambda c: callee_name(c) == "GradScaler"))
    return name_of(src, receiver(call)) in scalers - {None}


def walk(node: cst.CSTNode):
    """`node` and every node below it, in source order."""
    yield node
    for child in node.children:
        yield from walk(child)


def inside(src: Source, node: cst.CSTNode, container: cst.CSTNode) -> bool:
    """`node` is `container` or lies below it."""
    return _inside(src, node, container)


def _inside(src: Source, node: cst.CSTNode, container: cst.CSTNode) -> bool:
    return src.inside(node, container)


def optimized_model(src: Source, optimizer: str) -> str | None:
    """The model whose `.parameters()` the optimizer `optimizer` was built from (`opt = SGD(model.parameters())`)."""
    models = set()
    for node in src.nodes(cst.Assign):
        if len(node.targets) == 1 and name_of(src, node.targets[0].target) == optimizer and isinstance(node.value, cst.Call):
            models |= {name_of(src, receiver(c)) for c in calls_in(src, node.value, "parameters")}
    models.discard(None)
    return models.pop() if len(models) == 1 else None


def built_optimizers(src: Source) -> set[str]:
    """The names the file assigns a `torch.optim` optimizer to (`g_optimizer = Adam(...)`)."""
    return {t for t in _assigned_from(src, _is_optimizer_call) if t}
