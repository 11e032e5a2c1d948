"""One pass over a file's syntax tree that records what the checks ask about.

Units are the module body and each function body. For every statement we know
its unit, its class, the loops around it, and whether gradient recording is off
there (`with torch.no_grad()`, `inference_mode`, `set_grad_enabled(False)`, or a
decorated function). Assignments are kept per unit so that checks can follow a
name back to what it was made from.
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass, field

from graddoctor.lint.analysis.calls import bind_parameters
from graddoctor.lint.analysis.names import Names, call_name, dotted
from graddoctor.lint.segments import encode_lines, segment

MODULE_BASES = frozenset({"Module", "LightningModule", "PreTrainedModel", "Sequential", "ModuleList"})
_GRAD_OFF = frozenset({"no_grad", "inference_mode"})


@dataclass(frozen=True)
class GradOff:
    """Where gradient recording was turned off, and how (for the message)."""

    line: int
    how: str


@dataclass
class Unit:
    node: ast.AST  # ast.Module or a function definition
    name: str
    cls: "ClassInfo | None"
    bindings: dict[str, list["Binding"]] = field(default_factory=dict)
    lines: dict[str, list[int]] = field(default_factory=dict)  # sorted binding lines, for bisect


@dataclass(frozen=True)
class Ctx:
    unit: Unit
    grad_off: GradOff | None
    loops: tuple[ast.stmt, ...]


@dataclass
class Binding:
    key: str
    value: ast.expr
    stmt: ast.stmt
    ctx: Ctx

    @property
    def line(self) -> int:
        return self.stmt.lineno


@dataclass
class ClassInfo:
    name: str
    node: ast.ClassDef
    is_module: bool
    methods: dict[str, ast.FunctionDef] = field(default_factory=dict)


class FileAnalysis:
    """Everything the checks share about one parsed file."""

    def __init__(self, tree: ast.Module, source: str, filename: str):
        self.tree = tree
        self.source = source
        self.filename = filename
        self.classes: dict[str, ClassInfo] = {}
        self.functions: dict[str, ast.FunctionDef] = {}  # module-level functions, by name
        self.grad_off_functions: dict[str, GradOff] = {}  # function name -> its decorator
        self.grad_off_of: dict[int, GradOff] = {}  # id(function node) -> its decorator (methods of one name apart)
        self.units: list[Unit] = []
        self.calls: list[tuple[ast.Call, Ctx]] = []
        self.augassigns: list[tuple[ast.AugAssign, Ctx]] = []
        self.loops: list[tuple[ast.stmt, Ctx]] = []
        self.grad_switch_lines: set[int] = set()  # lines of bare `torch.set_grad_enabled(True/False)` statements
        self.item_stores: list[tuple[str, ast.expr, ast.stmt, Ctx]] = []  # `self.heads[name] = value`
        self.unit_of: dict[int, Unit] = {}  # id(function node) -> Unit
        self.calls_of: dict[int, list[ast.Call]] = {}  # id(statement or expression) -> the calls in it
        self._pending: list[tuple[ast.expr, ast.expr]] = []  # (target, value) to classify after the walk
        module_unit = self._new_unit(tree, "<module>", None)
        self._stmts(tree.body, Ctx(module_unit, None, ()))
        # What `Net()` builds depends on every class in the file, so names are judged after the walk.
        self._resolve_classes()
        self.names = Names({c.name for c in self.classes.values() if c.is_module})
        for target, value in self._pending:
            self.names.learn(target, value)
        if bind_parameters(self.names, self.calls, self.functions, self.classes):
            for target, value in self._pending:  # `self.optimizer = optimizer` now that `optimizer` is known
                if type(value) is ast.Name and (value.id in self.names.kind or value.id in self.names.constructed):
                    self.names.learn(target, value)
        del self._pending

    def _resolve_classes(self) -> None:
        """Which classes are nn.Modules: subclasses of nn.Module (or of such classes) in this file."""
        bases = {info.name: {(dotted(b) or "").rsplit(".", 1)[-1] for b in info.node.bases} for info in self.classes.values()}
        module_like = set(MODULE_BASES)
        changed = True
        while changed:
            changed = False
            for name, bs in bases.items():
                if name not in module_like and bs & module_like:
                    module_like.add(name)
                    changed = True
        for info in self.classes.values():
            info.is_module = info.name in module_like

    def _new_unit(self, node: ast.AST, name: str, cls: ClassInfo | None) -> Unit:
        unit = Unit(node, name, cls)
        self.units.append(unit)
        self.unit_of[id(node)] = unit
        return unit

    # --- the walk
    def _stmts(self, body: list[ast.stmt], ctx: Ctx) -> None:
        for stmt in body:
            switched = _set_grad_enabled(stmt) if type(stmt) is ast.Expr else None
            if switched is not None:
                self.grad_switch_lines.add(stmt.lineno)
                self._exprs([stmt], ctx)
                ctx = Ctx(ctx.unit, switched if switched.how else None, ctx.loops)
                continue
            self._stmt(stmt, ctx)

    def _stmt(self, stmt: ast.stmt, ctx: Ctx) -> None:
        kind = type(stmt)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            self._exprs(stmt.decorator_list, ctx)
            cls = ctx.unit.cls if ctx.unit.name.startswith("<class") else None
            off = next((o for o in map(_grad_off_of, stmt.decorator_list) if o), None)
            if off is not None:
                self.grad_off_functions[stmt.name] = off
                self.grad_off_of[id(stmt)] = off
            if isinstance(ctx.unit.node, ast.Module) and cls is None:
                self.functions[stmt.name] = stmt
            unit = self._new_unit(stmt, stmt.name, cls)
            self._stmts(stmt.body, Ctx(unit, off, ()))
        elif kind is ast.ClassDef:
            self._exprs(stmt.bases, ctx)
            info = ClassInfo(stmt.name, stmt, False)
            for item in stmt.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    info.methods[item.name] = item
            self.classes[stmt.name] = info
            inner = Unit(stmt, f"<class {stmt.name}>", info)
            self._stmts(stmt.body, Ctx(inner, ctx.grad_off, ()))
        elif kind is ast.For or kind is ast.AsyncFor or kind is ast.While:
            self._exprs([stmt.test] if kind is ast.While else [stmt.iter], ctx)
            self.loops.append((stmt, ctx))
            inner = Ctx(ctx.unit, ctx.grad_off, ctx.loops + (stmt,))
            if kind is not ast.While:
                self._bind(stmt.target, stmt.iter, stmt, inner, learn=False)
            self._stmts(stmt.body, inner)
            self._stmts(stmt.orelse, ctx)
        elif kind is ast.With or kind is ast.AsyncWith:
            off = ctx.grad_off
            for item in stmt.items:
                self._exprs([item.context_expr], ctx)
                mode = _grad_mode_of(item.context_expr)
                if mode is not None:
                    off = mode if mode.how else None
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, item.context_expr, stmt, ctx, learn=False)
            self._stmts(stmt.body, Ctx(ctx.unit, off, ctx.loops))
        elif kind is ast.If:
            self._exprs([stmt.test], ctx)
            self._stmts(stmt.body, ctx)
            self._stmts(stmt.orelse, ctx)
        elif kind is ast.Try or kind.__name__ == "TryStar":
            self._stmts(stmt.body, ctx)
            for handler in stmt.handlers:
                self._stmts(handler.body, ctx)
            self._stmts(stmt.orelse, ctx)
            self._stmts(stmt.finalbody, ctx)
        elif kind is ast.Match:
            self._exprs([stmt.subject], ctx)
            for case in stmt.cases:
                self._stmts(case.body, ctx)
        elif kind is ast.Assign:
            self._exprs([stmt.value], ctx)
            for target in stmt.targets:
                if type(target) is not ast.Name:  # `x[f(i)] = ...` may call; a plain name cannot
                    self._exprs([target], ctx)
                self._bind(target, stmt.value, stmt, ctx)
        elif kind is ast.AnnAssign:
            if stmt.value is not None:
                self._exprs([stmt.value], ctx)
                self._bind(stmt.target, stmt.value, stmt, ctx)
        elif kind is ast.AugAssign:
            self._exprs([stmt.value] if type(stmt.target) is ast.Name else [stmt.value, stmt.target], ctx)
            self.augassigns.append((stmt, ctx))
        else:
            if kind not in _NO_CALLS:
                self._exprs([stmt], ctx)

    def _exprs(self, nodes: list[ast.AST], ctx: Ctx) -> None:
        calls = self.calls
        for root in nodes:
            found = calls_in(root)
            self.calls_of[id(root)] = found
            for node in found:
                calls.append((node, ctx))

    def _bind(self, target: ast.expr, value: ast.expr, stmt: ast.stmt, ctx: Ctx, learn: bool = True) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for t, v in zip(target.elts, value.elts):
                    self._bind(t, v, stmt, ctx, learn)
                return
            for t in target.elts:  # unpacked from one call: each part comes "from" it
                self._bind(t, value, stmt, ctx, learn=False)
            return
        if isinstance(target, ast.Starred):
            target = target.value
        key = dotted(target)
        if key is None:
            if type(target) is ast.Subscript and learn:
                container = dotted(target.value)
                if container is not None:
                    self.item_stores.append((container, value, stmt, ctx))
            return
        if learn:
            self._pending.append((target, value))
        ctx.unit.bindings.setdefault(key, []).append(Binding(key, value, stmt, ctx))

    # --- queries
    def segment(self, node: ast.AST) -> str:
        """The source text of `node`."""
        lines = self.__dict__.get("_lines")
        if lines is None:
            lines = self._lines = encode_lines(self.source)
        return segment(lines, node)

    def binding_before(self, unit: Unit, key: str, line: int) -> Binding | None:
        """The assignment of `key` that a use on `line` most likely sees.

        The last one above the line; inside a loop a use may also see one from
        below it in the previous iteration, so we fall back to the last one.
        """
        found = unit.bindings.get(key)
        if not found:
            return None
        lines = unit.lines.get(key)
        if lines is None or len(lines) != len(found):
            found.sort(key=lambda b: b.line)
            lines = unit.lines[key] = [b.line for b in found]
        # A binding on the use's own line counts (`x = f(x)` is seen by the next line), except a
        # `for` target, whose value is the iterable rather than the element.
        i = bisect.bisect_right(lines, line)
        while i > 0 and found[i - 1].line == line and isinstance(found[i - 1].stmt, (ast.For, ast.AsyncFor)):
            i -= 1
        return found[i - 1] if i > 0 else found[-1]

    def method_unit(self, node: ast.AST) -> Unit | None:
        return self.unit_of.get(id(node))


def _leaf_types() -> frozenset:
    """Node and value types that never contain a call: contexts, operators, names, constants, plain values."""
    types = {ast.Constant, ast.Name, str, int, float, complex, bytes, bool, type(None), type(...)}
    for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop):
        types.update(base.__subclasses__())
    return frozenset(types)


_LEAVES = _leaf_types()


_NO_CALLS = frozenset({ast.Import, ast.ImportFrom, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal})
_NO_CHILDREN = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "name", "names", "type_comment", "kind", "is_async", "level", "module",
     "conversion", "value_name", "asname"}
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(kind: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _NO_CHILDREN)
    return fields


def calls_in(root: ast.AST) -> list[ast.Call]:
    """Every call inside `root`, like filtering ast.walk, but skipping the leaves that cannot hold one.

    This walk is most of lint's own time, so it avoids ast.walk's generator,
    visits only the fields that can hold expressions (not ctx, op, names), and
    skips names and constants.
    """
    out: list[ast.Call] = []
    stack = [root]
    pop, push, more = stack.pop, stack.append, stack.extend
    call_type, leaves, table = ast.Call, _LEAVES, _CHILD_FIELDS
    while stack:
        node = pop()
        kind = type(node)
        if kind is call_type:
            out.append(node)
        fields = table.get(kind) or _child_fields(kind)
        for name in fields:
            value = getattr(node, name)
            vkind = type(value)
            if vkind is list:
                more([v for v in value if type(v) not in leaves])
            elif vkind not in leaves:
                push(value)
    return out


def _grad_mode_of(expr: ast.expr) -> GradOff | None:
    """GradOff(how=...) when `expr` turns recording off, GradOff(how="") when it turns it on."""
    if not isinstance(expr, ast.Call):
        return None
    name = call_name(expr)
    if name in _GRAD_OFF:
        mode = expr.args[0] if expr.args else None
        if name == "inference_mode" and isinstance(mode, ast.Constant) and mode.value is False:
            return None
        return GradOff(expr.lineno, f"torch.{name}()")
    if name == "enable_grad":
        return GradOff(expr.lineno, "")
    if name == "set_grad_enabled" and expr.args and isinstance(expr.args[0], ast.Constant):
        if expr.args[0].value is False:
            return GradOff(expr.lineno, "torch.set_grad_enabled(False)")
        if expr.args[0].value is True:
            return GradOff(expr.lineno, "")
    return None


def _grad_off_of(decorator: ast.expr) -> GradOff | None:
    if isinstance(decorator, ast.Call):
        off = _grad_mode_of(decorator)
    else:
        name = (dotted(decorator) or "").rsplit(".", 1)[-1]
        off = GradOff(decorator.lineno, f"@torch.{name}") if name in _GRAD_OFF else None
    if off is not None and off.how:
        return GradOff(decorator.lineno, "@" + off.how.lstrip("@"))
    return None


def _set_grad_enabled(stmt: ast.stmt) -> GradOff | None:
    """A bare `torch.set_grad_enabled(False)` statement switches the rest of the block."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and call_name(stmt.value) == "set_grad_enabled":
        return _grad_mode_of(stmt.value)
    return None
