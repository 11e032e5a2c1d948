"""Places in the user's source that a framework's loop stands for (read with `ast`)."""

from __future__ import annotations

import ast
import inspect
import textwrap

from graddoctor.locate import NOWHERE, Location, is_user_file


def returned_value_line(cls: type, method: str) -> Location:
    """The line of the last `return` of `cls.method`, when the user wrote that method.

    A framework runs backward on what the user's hook returned (Lightning's
    `training_step`, a Trainer's `compute_loss`): that return is the user's
    backward line. NOWHERE when the method is the framework's own.
    """
    fn = getattr(cls, method, None)
    code = getattr(fn, "__code__", None)
    if code is None or not is_user_file(code.co_filename):
        return NOWHERE
    fallback = Location(code.co_filename, code.co_firstlineno, None, method)
    try:
        lines, start = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return fallback
    func = tree.body[0] if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if func is None:
        return fallback
    returns = [n for n in _own_nodes(func) if isinstance(n, ast.Return) and n.value is not None]
    if not returns:
        return fallback
    last = max(returns, key=lambda n: n.lineno)
    indent = len(lines[0]) - len(lines[0].lstrip())
    return Location(code.co_filename, start + last.lineno - 1, last.col_offset + indent + 1, method)


def _own_nodes(func: ast.AST):
    """Nodes of a function body, not descending into nested functions or classes."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
