"""No broad `except` in graddoctor swallows an error silently.

Every `except Exception`, `except BaseException` and bare `except` in src/graddoctor
either raises, records the error on the session (graddoctor/internal.py, which the
report shows and `graddoctor run` turns into exit 3 with "please report"), or is one
of the few listed below with its reason. A silent one hid graddoctor's own bugs:
`lint` failed on Python 3.10 and nothing said so. The source is read with `ast`.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "graddoctor"
BROAD = {"Exception", "BaseException"}

# Calls that record the error being handled. The two methods record through
# record_internal_error (checked below) and also switch the failing observer off.
RECORDERS = {
    "record_internal_error": "graddoctor/internal.py",
    "_fail": "session/session.py",  # Session._fail: an observer's failure
    "_failed": "observers/lossdata.py",  # LossDataObserver._failed: the observer's own failure
}

# (file under src/graddoctor, enclosing function) -> why its broad except may neither raise nor record.
ALLOWED = {
    ("cli/commands.py", "main"):
        "the command line's last resort: prints the traceback with 'please report' and exits 3",
    ("runner/lifecycle.py", "execute"):
        "the user's exception (script, cell or block): kept in the Ending, reported as the crash and "
        "raised again by the caller, never swallowed",
    ("runner/outputs.py", "print_terminal"):
        "not silent: a renderer's failure is printed on stderr and makes the exit code 3",
    ("runner/outputs.py", "print_formatted"):
        "not silent: a renderer's failure (run --format json|sarif) is printed on stderr and makes the exit code 3",
    ("runner/outputs.py", "write_files"):
        "not silent: a renderer's failure is printed on stderr and makes the exit code 3; "
        "the other outputs are still written",
    ("runner/gather.py", "gather"):
        "not silent: the report says that the other ranks could not be reached, and why",
    ("explain/evidence.py", "gather"):
        "reads the locals of the user's frames, whose objects may raise anything when read: "
        "the evidence is an extra sentence, the explanation stands without it",
}


def _is_broad(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in BROAD for t in types)


def _called_names(node: ast.AST) -> set[str]:
    out = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            out.add(func.id if isinstance(func, ast.Name) else getattr(func, "attr", ""))
    return out


def _handlers(tree: ast.AST):
    """(enclosing function name or "<module>", handler) for every except handler."""
    def visit(node: ast.AST, function: str):
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.ExceptHandler):
                yield function, child
            yield from visit(child, name)

    yield from visit(tree, "<module>")


def silent_broad_excepts(source: str) -> list[tuple[str, int]]:
    """(enclosing function, line) of each broad handler that neither raises nor records."""
    out = []
    for function, handler in _handlers(ast.parse(source)):
        if not _is_broad(handler):
            continue
        raises = any(isinstance(n, ast.Raise) for n in ast.walk(handler))
        if not raises and not (_called_names(handler) & RECORDERS.keys()):
            out.append((function, handler.lineno))
    return out


def _found() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for function, line in silent_broad_excepts(path.read_text(encoding="utf-8")):
            found.setdefault((rel, function), []).append(line)
    return found


def test_every_broad_except_raises_records_or_is_allowed_with_a_reason():
    found = _found()
    unexplained = [f"src/graddoctor/{rel}:{lines[0]} (in {function})"
                   for (rel, function), lines in found.items() if (rel, function) not in ALLOWED]
    assert not unexplained, (
        "a broad except that swallows the error: record it (graddoctor.internal.record_internal_error), "
        "narrow it to the exceptions really expected, or let it raise:\n" + "\n".join(unexplained))


def test_the_allowlist_is_short_and_every_entry_is_still_needed():
    found = _found()
    assert len(ALLOWED) <= 8
    stale = [key for key in ALLOWED if key not in found]
    assert not stale, f"no longer needed, take them off ALLOWED: {stale}"
    for key, lines in found.items():
        assert len(lines) <= 2, f"{key}: {len(lines)} allowed handlers in one function, at lines {lines}"


def test_each_recorder_records_through_the_helper():
    for name, rel in RECORDERS.items():
        tree = ast.parse((PACKAGE / rel.removeprefix("graddoctor/")).read_text(encoding="utf-8"))
        bodies = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
        assert bodies, f"{rel} defines no {name}"
        if name != "record_internal_error":
            assert all("record_internal_error" in _called_names(b) for b in bodies), f"{rel}: {name} does not record"


def test_the_check_tells_a_silent_handler_from_a_recorded_or_narrow_one():
    source = '''
def silent():
    try:
        work()
    except Exception:
        pass

def bare():
    try:
        work()
    except:
        return None

def recorded(session):
    try:
        work()
    except Exception:
        record_internal_error(session, "work")

def raised():
    try:
        work()
    except BaseException:
        cleanup()
        raise

def narrow():
    try:
        work()
    except (KeyError, ValueError):
        pass

def in_a_tuple():
    try:
        work()
    except (KeyError, Exception):
        pass
'''
    assert [function for function, _ in silent_broad_excepts(source)] == ["silent", "bare", "in_a_tuple"]
