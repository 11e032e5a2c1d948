"""Run SCRIPT (or -m MODULE) as __main__ with the standard observers attached."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import io
import os
import runpy
import sys
import traceback
import types
from dataclasses import dataclass

from graddoctor.assembly import standard_session
from graddoctor.locate import declare_user_file
from graddoctor.report.report import Report
from graddoctor.runner.lifecycle import Run
from graddoctor.session.session import Session


class UsageError(Exception):
    """Bad input from the command line: exit code 2 with this one-line message."""


@dataclass
class RunOutcome:
    report: Report
    session: Session
    exit_status: int | None  # the script's own sys.exit code, if it called it
    user_exception: BaseException | None


def check_script(path: str) -> str:
    """Read and compile the script up front, so bad input fails in one clear line."""
    if not os.path.exists(path):
        raise UsageError(f"no such file: {path}")
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory; give the training script to run")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    if b"\x00" in data[:8192]:
        raise UsageError(f"{path} is not a Python script (it looks like a binary file)")
    try:
        source = importlib.util.decode_source(data)  # honours a PEP 263 coding line, as Python does
    except (UnicodeDecodeError, SyntaxError, LookupError):
        raise UsageError(f"{path} is not a Python script (it is not text in its declared encoding, UTF-8 by default)") from None
    # A SyntaxError is not checked here: it is the user's error, raised when the script is run
    # and reported like any exception of theirs (exit 1, at its line), as `python` does.
    return source


def find_module(name: str) -> str | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise UsageError(f"no module named {name!r}")
    if spec.submodule_search_locations is not None:
        main = importlib.util.find_spec(f"{name}.__main__")
        return main.origin if main is not None else None
    return spec.origin


def run_target(
    target: str,
    args: list[str],
    *,
    module: bool = False,
    max_steps: int | None = None,
    deep: bool = True,
) -> RunOutcome:
    """Run the script to its end (or crash, or `max_steps`) and collect the report."""
    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    cwd = os.getcwd()
    origin: str | None = None
    if module:
        # As `python -m`: the current directory first on sys.path, before the module is looked up.
        sys.path.insert(0, os.getcwd())
        try:
            origin = find_module(target)
        except BaseException:
            _remove_cwd()
            raise
        if origin:
            declare_user_file(origin)
    else:
        check_script(target)
        declare_user_file(target)

    session = standard_session(mode="run", deep=deep, max_steps=max_steps)
    run = Run(session, command="run", target=target, sys_exit_is_status=True, note_internal_errors=False)
    try:
        sys.argv = [target if not module else (origin or target)] + list(args)
        if not module:
            sys.path[0] = os.path.dirname(os.path.abspath(target))
        if module:
            ending = run.execute(lambda: runpy.run_module(target, run_name="__main__", alter_sys=True))
        else:
            ending = run.execute(lambda: _run_script(target))
    finally:
        sys.argv = saved_argv
        _return_to(cwd)
        if module:
            _remove_cwd()
        elif saved_path0 is not None:
            sys.path[0] = saved_path0

    report = run.finish(static=True, script=origin if module else target)
    return RunOutcome(report, session, ending.exit_status, ending.exception)


def _run_script(target: str) -> None:
    """Execute the script as `python target` does, in a fresh `__main__` module.

    Since Python 3.9 `__file__` (and the code's filename) is absolute, so a script that
    changes directory can still find itself, while `sys.argv[0]` stays as typed.
    `runpy.run_path` ties the two together, so this does its few steps itself.
    """
    path = os.path.abspath(target)
    with io.open_code(path) as handle:
        code = compile(handle.read(), path, "exec", dont_inherit=True)  # bytes: PEP 263 applies
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __cached__=None, __package__=None, __spec__=None,
                         __loader__=importlib.machinery.SourceFileLoader("__main__", path))
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _return_to(cwd: str) -> None:
    """Back to the directory graddoctor was started in, if the script left it: the report's
    paths and the --json/--html files are relative to where the user typed the command."""
    try:
        if os.getcwd() != cwd:
            os.chdir(cwd)
    except OSError:
        pass


def _remove_cwd() -> None:
    try:
        sys.path.remove(os.getcwd())
    except ValueError:
        pass


def print_user_traceback(exc: BaseException, file=None) -> None:
    """The user's traceback as Python would print it, without graddoctor's and runpy's frames."""
    file = file or sys.stderr
    tb = exc.__traceback__
    while tb is not None and not _is_user_frame(tb):
        tb = tb.tb_next
    tb = tb if tb is not None else exc.__traceback__
    chained = exc.__cause__ is not None or (exc.__context__ is not None and not exc.__suppress_context__)
    if isinstance(exc, SyntaxError) and tb is exc.__traceback__ and not _has_user_frame(tb):
        # The script itself does not compile: Python shows the file, line and caret, no traceback.
        lines = traceback.format_exception_only(type(exc), exc)
    elif chained:
        lines = traceback.format_exception(type(exc), exc, tb)
    else:
        # Our own wrappers (the backward patch, deep mode's TorchFunctionMode) sit between the
        # user's frames and torch's; Python without graddoctor would not show them.
        frames = [f for f in traceback.extract_tb(tb) if not _instrumentation_frame(f.filename)]
        lines = ["Traceback (most recent call last):\n"] + traceback.format_list(frames)
        lines += traceback.format_exception_only(type(exc), exc)
    file.write("".join(lines))


def _instrumentation_frame(filename: str) -> bool:
    import torch.overrides

    from graddoctor import locate

    if filename == torch.overrides.__file__:
        return True
    return filename.startswith(locate._PACKAGE_DIR + os.sep) and not locate.is_user_file(filename)


def _has_user_frame(tb) -> bool:
    return any(_is_user_frame(t) for t in _walk(tb))


def _walk(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


def _is_user_frame(tb) -> bool:
    from graddoctor.locate import is_user_file

    return is_user_file(tb.tb_frame.f_code.co_filename)
