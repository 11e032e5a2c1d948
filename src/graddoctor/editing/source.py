"""One user file as a concrete syntax tree: find the nodes at a finding's lines, and rewrite them.

Edits name nodes of `tree` and what replaces them; `rewrite` produces the new text.
Everything not named keeps its exact characters (comments, blank lines, quoting).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

# What a node may be replaced by: a node, several statements, or nothing (removed).
Replacement = cst.CSTNode | cst.FlattenSentinel | cst.RemovalSentinel


class Source:
    """The parsed text of one file; `tree` is the node identity that edits refer to."""

    def __init__(self, text: str):
        self.text = text
        self._wrapper = MetadataWrapper(cst.parse_module(text))
        self.tree = self._wrapper.module
        self._positions = self._wrapper.resolve(PositionProvider)
        self._parents = self._wrapper.resolve(ParentNodeProvider)
        self._offsets: dict[int, tuple[int, int]] | None = None  # top-level statement -> (start, length) in text
        # built on first use, so that an edit per finding costs its own lines, not a pass over the file each
        self._of_kind: dict = {}  # kind -> its nodes in source order
        self._starting: dict[type, dict[int, list]] = {}  # kind -> start line -> its nodes there
        self._named: dict[str, list] = {}  # method -> the calls of it
        self._named_lines: dict[str, list[int]] = {}  # method -> the start line of each of those calls

    # ---- where things are -------------------------------------------------------------------

    def lines_of(self, node: cst.CSTNode) -> tuple[int, int]:
        pos = self._positions[node]
        return pos.start.line, pos.end.line

    def column_of(self, node: cst.CSTNode) -> int:
        """Where `node` starts on its line, 1-based as findings count columns."""
        return self._positions[node].start.column + 1

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(node)

    def nodes(self, kind: type | tuple[type, ...] = cst.CSTNode) -> Iterator[cst.CSTNode]:
        found = self._of_kind.get(kind)
        if found is None:
            found = self._of_kind[kind] = [node for node in self._positions if isinstance(node, kind)]
        return iter(found)

    def starting_on(self, line: int, kind: type | tuple[type, ...]) -> list[cst.CSTNode]:
        """The nodes of `kind` that start on `line`, in source order."""
        by_line = self._starting.get(kind)
        if by_line is None:
            by_line = self._starting[kind] = {}
            for node in self.nodes(kind):
                by_line.setdefault(self._positions[node].start.line, []).append(node)
        return by_line.get(line, [])

    def calls_named(self, method: str) -> list[cst.Call]:
        """Every call of `x.method(...)` or `method(...)`, in source order."""
        found = self._named.get(method)
        if found is None:
            calls = [n for n in self.nodes(cst.Call) if callee_name(n) == method]
            found = self._named[method] = sorted(calls, key=lambda c: self._positions[c].start.line)
            self._named_lines[method] = [self._positions[c].start.line for c in found]
        return found

    def calls_within(self, method: str, node: cst.CSTNode) -> list[cst.Call]:
        """The calls of `method` inside `node`, in source order: only those on its lines are looked at."""
        calls = self.calls_named(method)
        lines = self._named_lines[method]
        first, last = self.lines_of(node)
        return [c for c in calls[bisect.bisect_left(lines, first):bisect.bisect_right(lines, last)] if self.inside(c, node)]

    def inside(self, node: cst.CSTNode, container: cst.CSTNode) -> bool:
        """Whether `node` is `container` or lies within it."""
        while node is not None:
            if node is container:
                return True
            node = self.parent(node)
        return False

    def statement_at(self, line: int | None) -> cst.BaseStatement | None:
        """The innermost statement that starts on `line` (a compound statement by its header)."""
        if line is None:
            return None
        best = None
        for node in self.starting_on(line, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            if best is None or self._depth(node) > self._depth(best):
                best = node
        return best

    def simple_at(self, line: int | None) -> cst.BaseSmallStatement | None:
        """The statement on `line` when it is alone on its line (`total += loss`, not `a; b`)."""
        stmt = self.statement_at(line)
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            return stmt.body[0]
        return None

    def statement_of(self, node: cst.CSTNode) -> cst.BaseStatement | None:
        """The statement that holds `node`."""
        while node is not None and not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            node = self.parent(node)
        return node

    def enclosing(self, node: cst.CSTNode, kind: type | tuple[type, ...]) -> cst.CSTNode | None:
        node = self.parent(node)
        while node is not None and not isinstance(node, kind):
            node = self.parent(node)
        return node

    def calls_at(self, line: int | None, method: str | None = None) -> list[cst.Call]:
        """Calls on `line` (innermost last), optionally only `x.method(...)` / `method(...)`."""
        if line is None:
            return []
        return [node for node in self.starting_on(line, cst.Call) if method is None or callee_name(node) == method]

    def code(self, node: cst.CSTNode) -> str:
        return self.tree.code_for_node(node)

    def _depth(self, node: cst.CSTNode) -> int:
        depth = 0
        while (node := self.parent(node)) is not None:
            depth += 1
        return depth

    # ---- rewriting ------------------------------------------------------------------------

    def rewrite(self, replacements: dict[cst.CSTNode, Replacement]) -> str:
        """The text with each named node replaced (by identity in `tree`)."""
        if not replacements:
            return self.text
        local = self._rewrite_local(replacements)
        return local if local is not None else self.tree.visit(_Replace(replacements)).code

    def _rewrite_local(self, replacements: dict[cst.CSTNode, Replacement]) -> str | None:
        """The same text, when every replaced node lies inside one top-level statement: only that statement is
        rewritten and put back in its place (a large file is not rendered again per edit); else None."""
        tops = {id(t): t for t in (self._top(k) for k in replacements)}
        if len(tops) != 1 or None in tops.values():
            return None
        top = next(iter(tops.values()))
        if top is None or any(k is top for k in replacements):
            return None
        if self._offsets is None:
            at = len(self.text) - len(self.tree.with_changes(header=[]).code)  # the header's length
            self._offsets = {}
            for stmt in self.tree.body:
                size = len(self.tree.code_for_node(stmt))
                self._offsets[id(stmt)] = (at, size)
                at += size
        start, size = self._offsets[id(top)]
        new = top.visit(_Replace(replacements))
        if not isinstance(new, cst.CSTNode):
            return None
        return self.text[:start] + self.tree.code_for_node(new) + self.text[start + size:]

    def _top(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The module-level statement that holds `node`."""
        while node is not None:
            parent = self.parent(node)
            if parent is self.tree:
                return node
            node = parent
        return None

    def ancestors(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        out = []
        while (node := self.parent(node)) is not None:
            out.append(node)
        return out


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[cst.CSTNode, Replacement]):
        super().__init__()
        self._by_id = {id(k): v for k, v in replacements.items()}

    def on_leave(self, original_node, updated_node):
        found = self._by_id.get(id(original_node))
        if found is None:
            return updated_node
        return found(updated_node) if callable(found) else found


def callee_name(call: cst.Call) -> str | None:
    """`opt.step()` -> "step", `clip_grad_norm_(...)` -> "clip_grad_norm_"."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return None


def receiver(call: cst.Call) -> cst.BaseExpression | None:
    """`opt.step()` -> the `opt` node."""
    return call.func.value if isinstance(call.func, cst.Attribute) else None


def statement(code: str) -> cst.SimpleStatementLine:
    """A new statement from its text (indentation comes from where it is put)."""
    parsed = cst.parse_statement(code.strip() + "\n")
    assert isinstance(parsed, cst.SimpleStatementLine)
    return parsed


def expression(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def _split_lead(lead) -> tuple[list, list]:
    """A statement's leading lines as (the blank lines above its comment block, the comment block)."""
    lead = list(lead)
    first = next((i for i, line in enumerate(lead) if line.comment is not None), len(lead))
    return lead[:first], lead[first:]


def before(new: cst.BaseStatement) -> Callable:
    """Replacement for a statement: `new`, then the statement, which keeps the comment block above it
    (the comment describes it, not `new`); blank lines above the comment go above `new`."""

    def put(updated: cst.BaseStatement):
        blank, comments = _split_lead(getattr(updated, "leading_lines", ()))
        return cst.FlattenSentinel([new.with_changes(leading_lines=blank), updated.with_changes(leading_lines=comments)])

    return put


def after(*new: cst.BaseStatement) -> Callable:
    def put(updated: cst.BaseStatement):
        return cst.FlattenSentinel([updated, *new])

    return put


def moving(stmt: cst.BaseStatement) -> cst.BaseStatement:
    """A statement that moves elsewhere (and is removed where it was) takes the comment above it along;
    the blank lines stay behind."""
    return stmt.with_changes(leading_lines=_split_lead(getattr(stmt, "leading_lines", ()))[1])


def moved_before(moving_stmt: cst.BaseStatement) -> Callable:
    """Replacement that puts a statement that is being moved (removed elsewhere) before this one."""
    return before(moving(moving_stmt))


@dataclass
class Change:
    """What one edit does to one file: node replacements, and import lines it needs."""

    title: str
    replacements: dict[cst.CSTNode, Replacement] = field(default_factory=dict)
    imports: list[str] = field(default_factory=list)  # e.g. "import copy"


def apply_change(src: Source, change: Change) -> str:
    text = src.rewrite(change.replacements)
    for line in change.imports:
        text = add_import(text, line)
    return text


def add_import(text: str, line: str) -> str:
    """Add `import x` after the module's docstring and `__future__` imports, unless it is there."""
    module = cst.parse_module(text)
    wanted = cst.parse_statement(line + "\n")
    body = list(module.body)
    if any(module.code_for_node(s).strip() == line for s in body):
        return text
    at = 0
    for i, stmt in enumerate(body):
        first = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        is_doc = i == 0 and isinstance(first, cst.Expr) and isinstance(first.value, cst.SimpleString)
        is_future = isinstance(first, cst.ImportFrom) and isinstance(first.module, cst.Name) and first.module.value == "__future__"
        if is_doc or is_future:
            at = i + 1
    body.insert(at, wanted)
    return module.with_changes(body=body).code


def span_change(src: Source, spans: list[tuple[int, int, int, int, str]], title: str) -> Change:
    """Replace the expressions at exact spans (1-based lines, 0-based character columns) by the texts given.

    A span that is not exactly one expression of the tree is left alone: a rewrite that
    cannot be placed on a node is not made.
    """
    by_span: dict[tuple[int, int, int, int], cst.BaseExpression] = {}
    for node in src.nodes(cst.BaseExpression):
        pos = src._positions[node]
        key = (pos.start.line, pos.start.column, pos.end.line, pos.end.column)
        by_span.setdefault(key, node)  # outermost first: the walk meets parents before children
    replacements: dict[cst.CSTNode, Replacement] = {}
    for line, col, end_line, end_col, text in spans:
        node = by_span.get((line, col, end_line, end_col))
        if node is not None:
            replacements[node] = expression(text)
    return Change(title, replacements)


def with_keyword(call: cst.Call, name: str, value: str) -> dict[cst.CSTNode, Replacement] | None:
    """The replacement that gives `call` the argument `name=value` (set, or added last, formatted as the
    call's other arguments are); None when `**kwargs` may already hold it."""
    if any(a.star == "**" for a in call.args):
        return None
    new_value = expression(value)
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return {arg.value: new_value}
    new = cst.Arg(keyword=cst.Name(name), value=new_value,
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    if not call.args:
        return {call: call.with_changes(args=[new])}
    last = call.args[-1]
    # The new argument ends as the last one did (a trailing comma, a line break before the
    # parenthesis); the last one is now separated as the one before it was.
    before_last = call.args[-2].comma if len(call.args) > 1 else cst.MaybeSentinel.DEFAULT
    separator = before_last if isinstance(before_last, cst.Comma) else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = list(call.args[:-1]) + [last.with_changes(comma=separator), new.with_changes(comma=last.comma)]
    return {call: call.with_changes(args=args)}
