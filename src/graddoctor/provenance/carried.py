"""GD107: which tensor carried the previous iteration's graph into this backward pass.

At every observed backward pass the tensors the user's frames hold by name
(`hidden`, `model.memory`, ...) are tagged in their grad_fn's `metadata`
(the node keeps the tag; nothing here keeps the node). When backward later
fails on a freed graph, the failing graph is walked from its root: a tagged
node from an earlier backward pass is the state that was carried over, and
a root that was itself tagged earlier means two backward calls share a graph.
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
import sys
from dataclasses import dataclass

import torch
from torch import nn

from graddoctor.locate import Location, frame_locals, is_user_file

_TAG = "graddoctor.carried"
_MAX_NODES = 200_000


@dataclass(frozen=True)
class Tag:
    name: str  # "hidden", "model.memory"
    holder: Location  # the user frame that held the name (the backward call's frame)
    backward: int  # index of the backward pass that tagged it
    where: Location  # that backward call's line
    source: str | None = None  # the file that assigns it (a module's class file for `model.attr`)
    container: str | None = None  # "tuple", "list" or "dict" when the name holds several tensors (an LSTM's (h, c))


def tag_named_tensors(event_index: int, backward_where: Location, frames: int = 2) -> None:
    """Tag the graph roots of tensors named in the innermost user frames."""
    frame = sys._getframe(1)
    seen = 0
    while frame is not None and seen < frames:
        code = frame.f_code
        if is_user_file(code.co_filename):
            seen += 1
            holder = Location(code.co_filename, frame.f_lineno, None, code.co_name)
            # grad_fn read with tensor subclasses' own hooks off: a subclass that counts its
            # ops must not count ours.
            with torch._C.DisableTorchFunctionSubclass():
                for name, value in frame_locals(frame).items():
                    _tag_value(name, value, holder, event_index, backward_where)
        frame = frame.f_back


def _tag_value(
    name: str, value, holder: Location, index: int, where: Location, depth: int = 0, source: str | None = None,
    container: str | None = None,
) -> None:
    if isinstance(value, torch.Tensor):
        node = value.grad_fn
        if node is not None:
            node.metadata.setdefault(_TAG, Tag(name, holder, index, where, source, container))
    elif isinstance(value, (tuple, list)) and depth == 0 and len(value) <= 8:
        kind = "list" if isinstance(value, list) else "tuple"
        for item in value:
            _tag_value(name, item, holder, index, where, 1, source, kind)
    elif isinstance(value, dict) and depth == 0 and len(value) <= 8:
        for item in value.values():
            _tag_value(name, item, holder, index, where, 1, source, "dict")
    elif isinstance(value, nn.Module) and depth == 0 and not name.startswith("_"):
        for attr, item in vars(value).items():
            if isinstance(item, torch.Tensor) and not isinstance(item, nn.Parameter) and item.grad_fn is not None:
                _tag_value(f"{name}.{attr}", item, holder, index, where, 1, _class_file(value))


def _class_file(module: nn.Module) -> str | None:
    try:
        return inspect.getsourcefile(type(module))
    except (TypeError, OSError):
        return None


@dataclass
class FreedGraph:
    carried: Tag | None  # the tensor carried over, or None
    shared: Tag | None  # the root itself belonged to an earlier backward
    site: tuple | None = None  # (file, line, function) of the op that made the carried tensor


def inspect_failure(loss, failing_index: int, site_key: str = "") -> FreedGraph:
    roots = [t.grad_fn for t in (loss if isinstance(loss, (list, tuple)) else [loss])
             if isinstance(t, torch.Tensor) and t.grad_fn is not None]
    for root in roots:
        tag = root.metadata.get(_TAG)
        if tag is not None and tag.backward < failing_index:
            return FreedGraph(None, tag)
    seen = set(roots)
    queue = list(roots)
    head = 0
    while head < len(queue) and head < _MAX_NODES:
        node = queue[head]
        head += 1
        tag = node.metadata.get(_TAG) if hasattr(node, "metadata") else None
        if tag is not None and tag.backward < failing_index:
            return FreedGraph(tag, None, node.metadata.get(site_key))
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return FreedGraph(None, None)


def assignment_line(file: str, name: str, before: int | None) -> int | None:
    """The line that last assigns `name` (`x` or `obj.attr`) before line `before` in `file`."""
    lines = _assignments(file, name.split(".")[-1], "." in name)
    if not lines:
        return None
    earlier = [n for n in lines if before is None or n <= before]
    return max(earlier) if earlier else lines[0]


def _tree(file: str) -> ast.Module | None:
    try:
        stat = os.stat(file)
    except OSError:
        return None
    return _parsed(file, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _parsed(file: str, mtime: int, size: int) -> ast.Module | None:
    """Parsed once per version of the file: a relative `train.py` may be another file later."""
    try:
        with open(file, encoding="utf-8") as handle:
            return ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return None


def _assignments(file: str, name: str, attribute: bool) -> list[int]:
    tree = _tree(file)
    if tree is None:
        return []
    out = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.For):
            targets = [node.target]
        for target in targets:
            for sub in ast.walk(target):
                if attribute and isinstance(sub, ast.Attribute) and sub.attr == name:
                    out.append(node.lineno)
                elif not attribute and isinstance(sub, ast.Name) and sub.id == name:
                    out.append(node.lineno)
    return sorted(set(out))


def detach_fix(tag: Tag, file: str | None, line: int | None) -> str:
    """The statement that cuts the carried state, shaped like the state the user holds.

    A tuple or list of tensors (an LSTM's `(h, c)`) is detached element by element,
    since neither has `.detach()`; names unpacked together at the assignment
    (`out, (h, c) = lstm(x, (h, c))`) are detached together.
    """
    name = tag.name
    if tag.container == "tuple":
        return f"{name} = tuple(s.detach() for s in {name})"
    if tag.container == "list":
        return f"{name} = [s.detach() for s in {name}]"
    if tag.container == "dict":
        return f"{name} = {{k: v.detach() for k, v in {name}.items()}}"
    together = _unpacked_with(file, line, name) if file and line and "." not in name else []
    if len(together) > 1:
        return f"{', '.join(together)} = {', '.join(n + '.detach()' for n in together)}"
    return f"{name} = {name}.detach()"


def _unpacked_with(file: str, line: int, name: str) -> list[str]:
    """The names unpacked next to `name` at `line` that are also fed back in: `h, c` in
    `out, (h, c) = lstm(x, (h, c))` or `h, c = cell(x, (h, c))`, not `output` in `output, h = gru(x, h)`."""
    tree = _tree(file)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Assign) and node.lineno == line:
            fed_back = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            for target in node.targets:
                for sub in ast.walk(target):
                    if isinstance(sub, (ast.Tuple, ast.List)):
                        names = [e.id for e in sub.elts if isinstance(e, ast.Name) and e.id in fed_back]
                        if name in names:
                            return names
    return []
