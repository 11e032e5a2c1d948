"""GD502: `[block] * n`, `[block for _ in range(n)]` or `{task: head for task in tasks}`: one module object
repeated in a list (or under every key of a dict) of layers."""

from __future__ import annotations

import ast
import re

from graddoctor.lint.analysis.model import FileAnalysis, Unit
from graddoctor.lint.analysis.names import call_name, dotted, strip_to
from graddoctor.lint.analysis.constants import constant
from graddoctor.lint.analysis.returns import builds_module, passed_to
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
        if kind is None and depth > 0 and _builds_module(a, unit, expr, depth - 1):
            return a.segment(expr)  # `conv_bn_relu(ch)`, a helper of this file that returns a new block
        if kind != "module" or call_name(expr) in PARAMETER_FREE or _parameter_free_class(a, call_name(expr)):
            return None
        return a.segment(expr)
    key = dotted(expr)
    if key is None:
        return None
    b = a.binding_before(unit, key, line)
    built = strip_to(b.value) if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) else None
    if isinstance(built, ast.Call):
        if a.names.classify_call(built) == "module":
            return None if call_name(built) in PARAMETER_FREE or _parameter_free_class(a, call_name(built)) else key
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


def _parameter_free_class(a: FileAnalysis, name: str, depth: int = 3) -> bool:
    """A module class of this file that holds nothing (an activation like `class Swish(nn.Module)`): no attribute
    built from a call, nothing registered, and no base but `nn.Module` or such classes of this file."""
    info = a.classes.get(name)
    if info is None or depth <= 0:
        return False
    for base in info.node.bases:
        base_name = (dotted(base) or "").rsplit(".", 1)[-1]
        if base_name != "Module" and not _parameter_free_class(a, base_name, depth - 1):
            return False
    for method in info.methods.values():
        for node in ast.walk(method):
            if type(node) is ast.Assign and type(node.value) is ast.Call \
                    and any((dotted(t) or "").startswith("self.") for t in node.targets):
                return False
            if type(node) is ast.Call and call_name(node) in ("register_parameter", "add_module", "register_module",
                                                                "setattr"):
                return False
    return True


def _builds_module(a: FileAnalysis, unit: Unit, call: ast.Call, depth: int) -> bool:
    """Whether `call` runs a helper of this file that returns a new module with parameters (`conv_bn_relu(ch)`)."""
    return builds_module(a, call, unit, depth=depth, accept=lambda c: call_name(c) not in PARAMETER_FREE
                         and not _parameter_free_class(a, call_name(c)))


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
        for seq, other in ((node.left, node.right), (node.right, node.left)):
            if type(seq) is ast.Name and not isinstance(other, (ast.List, ast.Tuple)):
                found = _named_list_repeat(a, unit, seq, node.lineno)
                if found:
                    return found
    elif isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.DictComp)):
        elt = node.value if isinstance(node, ast.DictComp) else node.elt
        if type(elt) is ast.Subscript and len(node.generators) == 1 and not node.generators[0].ifs:
            gen = node.generators[0]
            return _registry_repeat(a, unit, elt, gen.target, gen.iter, node.lineno)
        elt = _shallow_copied(elt)
        if not isinstance(elt, (ast.Name, ast.Attribute)):
            return None  # a call builds a new module per entry; `heads[k]` picks one per key
        bound = {dotted(t) for g in node.generators for t in ast.walk(g.target) if isinstance(t, ast.Name)}
        key = dotted(elt)
        if key and key.split(".")[0] not in bound:
            return _module_object(a, unit, elt, node.lineno, inside)
    return None


def _named_list_repeat(a: FileAnalysis, unit: Unit, seq: ast.Name, line: int) -> str | None:
    """`hidden = [nn.Linear(w, w), nn.Tanh()]` then `hidden * depth`: a list of this unit, bound once to a
    literal that builds a module with parameters, repeated whole (every copy holds the same objects)."""
    bindings = unit.bindings.get(seq.id, ())
    b = a.binding_before(unit, seq.id, line)
    if b is None or len(bindings) != 1 or type(b.stmt) is not ast.Assign or type(b.value) not in (ast.List, ast.Tuple) \
            or b.line >= line:
        return None
    for elt in b.value.elts:
        if type(elt) is ast.Call and _module_object(a, unit, elt, b.line, False):
            return f"{seq.id}` = `{a.segment(b.value)}"
    return None


def _shallow_copied(node: ast.expr) -> ast.expr:
    """`copy.copy(block)` is `block` here: a shallow copy of a module shares its parameter tensors
    (`_parameters` is copied by reference), so n shallow copies train one set of weights."""
    if type(node) is ast.Call and len(node.args) == 1 and not node.keywords and dotted(node.func) in ("copy.copy", "copy"):
        return node.args[0]
    return node


def _registry_repeat(a: FileAnalysis, unit: Unit, elt: ast.Subscript, target: ast.expr, iterable: ast.expr,
                     line: int) -> str | None:
    """`[registry[letter] for letter in "CCPCCP"]` (or a loop appending `registry[letter]`): a dict of module
    objects indexed by a sequence the file fixes, in which a key of a module with parameters comes back."""
    if type(target) is not ast.Name or type(elt.slice) is not ast.Name or elt.slice.id != target.id:
        return None
    key = dotted(elt.value)
    b = a.binding_before(unit, key, line) if key else None
    if b is None or len(unit.bindings.get(key, ())) != 1 or type(b.value) is not ast.Dict or b.line > line:
        return None
    sequence = constant(a, unit, iterable, line)
    if not isinstance(sequence, (str, tuple)):
        return None
    for k, v in zip(b.value.keys, b.value.values):
        if type(k) is ast.Constant and sequence.count(k.value) > 1:
            found = _module_object(a, unit, v, b.line, False)
            if found:
                return f"{key}[{k.value!r}]` = `{found}`, {sequence.count(k.value)} times in `{sequence!r}"
    return None


# Candidate lines: `[...] * n`, `n * [...]`, `(m,) * n`, `n * (m,)`, `[name for ...]`, `(name for ...)`,
# `{key: name for ...}` (the shapes `_repeated` judges).
_SHAPES = re.compile(
    r"\]\s*\*|\*\s*\[|,\s*\)\s*\*|\*\s*\(|[\[(]\s*[\w.]+(?:\[\w+\])?\s+for\s|\{[^:\n]+:\s*[\w.]+\s+for\s"
    r"|copy\(\s*[\w.]+\s*\)\s+for\s")


_LIST_BINDING = re.compile(r"^\s*(\w+)\s*=\s*[\[(]\s*(?:[\w.]+\.)?[A-Z]\w*\(", re.MULTILINE)

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


_ADDS = frozenset({"append", "extend", "insert", "add_module"})


def _added_in_loop(a: FileAnalysis, r: Reporter) -> None:
    """`for _ in range(n): self.convs.append(conv)` with `conv` built once before the loop (or
    `layers.append(registry[letter])` over a fixed layout): every entry of the container is that one
    object. The container must be one of modules (`nn.ModuleList()`, or a list that goes into
    `nn.Sequential(*layers)` / `nn.ModuleList(layers)`)."""
    for call, ctx in a.calls:
        if not ctx.loops or not call.args:
            continue
        func = call.func
        if type(func) is ast.Attribute and func.attr in _ADDS:
            container, item = dotted(func.value), call.args[-1]
        elif type(func) is ast.Name and func.id == "setattr" and len(call.args) == 3 and dotted(call.args[0]) == "self":
            container, item = "self", call.args[2]  # `setattr(self, f"block{i}", block)`
        else:
            continue
        loop = ctx.loops[-1]
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or _runs_once(a, ctx.unit, loop):
            continue
        if call_name(call) == "extend":
            if type(item) is not ast.List or len(item.elts) != 1:
                continue
            item = item.elts[0]
        if container is None:
            continue
        item = _shallow_copied(item)
        if type(item) is ast.Subscript:
            found = _registry_repeat(a, ctx.unit, item, loop.target, loop.iter, call.lineno)
        elif type(item) is ast.Name and not _bound_in(ctx.unit, item.id, loop):
            found = _module_object(a, ctx.unit, item, call.lineno, False)
        else:
            found = None
        if not found or _SHARE_WORDS.search(found) or _SHARE_WORDS.search(container) or _in_sharing_function(ctx.unit) \
                or not _module_container(a, ctx.unit, container, call):
            continue
        r.add(
            CODE,
            f"`{r.segment(call)}` adds one module object (`{found}`) to `{container}` on every pass of the loop "
            f"(line {loop.lineno}): the entries are the same layer, so the n \"layers\" share one set of weights.",
            call,
            related=[r.related(loop.lineno, "the loop that adds it again")],
            hint="Build a new module on each pass (`self.convs.append(Block(...))`, or `copy.deepcopy(block)`); "
                 "to share weights on purpose, keep one module and call it n times in `forward`.",
        )


def _runs_once(a: FileAnalysis, unit: Unit, loop: ast.stmt) -> bool:
    """`for _ in range(1)`, a loop over a one-item sequence: nothing is added twice."""
    it = loop.iter
    if type(it) is ast.Call and type(it.func) is ast.Name and it.func.id == "range" and len(it.args) == 1:
        count = constant(a, unit, it.args[0], loop.lineno)
        return type(count) is int and count <= 1
    value = constant(a, unit, it, loop.lineno)
    return isinstance(value, (str, tuple)) and len(value) <= 1


def _bound_in(unit: Unit, name: str, loop: ast.stmt) -> bool:
    """Whether `name` is (re)bound inside `loop` (a new module per pass, or the loop's own variable)."""
    return any(loop in b.ctx.loops or b.stmt is loop for b in unit.bindings.get(name, ()))


def _module_container(a: FileAnalysis, unit: Unit, container: str, call: ast.Call) -> bool:
    """`self.convs = nn.ModuleList()` (or Sequential/ModuleDict), or a list given to one of those in the unit."""
    built = a.names.call.get(container)
    if built is not None and call_name(built) in _CONTAINERS:
        return True
    if container == "self" and call_name(call) in ("add_module", "setattr") and unit.cls is not None \
            and unit.cls.is_module:
        return True
    for c, ctx in a.calls:
        if ctx.unit is unit and call_name(c) in _CONTAINERS and c.lineno > call.lineno:
            for arg in c.args:
                arg = arg.value if type(arg) is ast.Starred else arg
                if dotted(arg) == container:
                    return True
    return False


def _in_sharing_function(unit: Unit) -> bool:
    """Code in a function named for tying or sharing (`tie_weights`, `test_find_tied_parameters`) means it."""
    return unit.name != "<module>" and bool(_SHARE_WORDS.search(unit.name))


def _listed_twice(a: FileAnalysis, r: Reporter) -> None:
    """`nn.Sequential(conv, bn, act, conv, ...)`, `nn.ModuleList([a, a])`, `dict.fromkeys(tasks, head)`: one
    module object with parameters named twice among a container's entries (or put under every key)."""
    for call, ctx in a.calls:
        name = call_name(call)
        if name == "fromkeys" and len(call.args) == 2 and dotted(call.func) == "dict.fromkeys":
            found = _module_object(a, ctx.unit, call.args[1], call.lineno, False)
            if found and not _SHARE_WORDS.search(found) and not _in_sharing_function(ctx.unit):
                r.add(
                    CODE,
                    f"`{r.segment(call)}` puts one module object (`{found}`) under every key: the entries are the "
                    "same layer, so the \"separate\" modules share one set of weights.",
                    call,
                    hint="Build a new module per key: `{k: Block(...) for k in keys}`; to share weights on purpose, "
                         "keep one module and use it for every key in `forward`.",
                )
            continue
        if name not in _CONTAINERS or not call.args or _in_sharing_function(ctx.unit):
            continue
        items = call.args
        if len(items) == 1 and type(items[0]) in (ast.List, ast.Tuple):
            items = items[0].elts
        elif len(items) == 1 and type(items[0]) is ast.Dict:
            items = items[0].values
        seen: set[str] = set()
        for item in items:
            key = dotted(item) if type(item) in (ast.Name, ast.Attribute) else None
            if key is None:
                continue
            if key in seen and not _SHARE_WORDS.search(key) and _module_object(a, ctx.unit, item, call.lineno, False):
                r.add(
                    CODE,
                    f"`{r.segment(call)}` lists one module object (`{key}`) more than once: those entries are the "
                    "same layer, applied again with the same weights.",
                    call,
                    hint=f"Build a new module for each entry (`copy.deepcopy({key})`, or another constructor call); "
                         "to share weights on purpose, name it so (`shared_...`) or call it twice in `forward`.",
                )
                break
            seen.add(key)


def check(a: FileAnalysis, r: Reporter) -> None:
    if "fromkeys" in a.source or "Sequential(" in a.source or "ModuleList(" in a.source or "ModuleDict(" in a.source:
        _listed_twice(a, r)
    if "*" not in a.source and " for " not in a.source:
        return
    if "setattr" in a.source or "append" in a.source or "add_module" in a.source or "extend" in a.source or "insert" in a.source:
        _added_in_loop(a, r)
    lines = lines_matching(a.source, _SHAPES)
    listed = set(_LIST_BINDING.findall(a.source))
    if listed:  # `hidden * depth`, with `hidden = [nn.Linear(...), ...]` earlier
        names = "|".join(sorted(map(re.escape, listed)))
        extra = lines_matching(a.source, re.compile(rf"\b(?:{names})\s*\*|\*\s*(?:{names})\b"))
        lines = sorted(set(lines) | set(extra))
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
                if found is None or _sharing_meant(a, parents, parent, found) \
                        or type(parents.get(id(parent))) is ast.comprehension:
                    continue  # `[copy.deepcopy(m) for m in blocks * n]`: each entry goes through the comprehension
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
