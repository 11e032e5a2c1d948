"""Jupyter / IPython: `%load_ext graddoctor`, then `%%graddoctor [run options]` on a cell,
or `%graddoctor on` / `%graddoctor report` / `%graddoctor off` around several cells.

The cell magic runs its cell as `graddoctor run` runs a script: the standard
observers in run mode (deep for the first steps), the notebook's own namespace
(so models are named by the notebook's variables), the report shown below the
cell (as HTML, `Report._repr_html_`), and the user's exception raised again
after the report, never swallowed. Findings name the cell as IPython does in
its tracebacks (`Cell In[3]:5`), with line numbers as the cell shows them; the
extension also names cells that way for a `watch()` attached in one cell and
used in later ones.

The line magic keeps one watch (the `watch()` observers, models found and named
by the notebook's variables) attached from `%graddoctor on` to `%graddoctor off`,
whatever the cells in between raise; `%graddoctor report` shows its findings so far.
"""

from __future__ import annotations

import argparse
import linecache
import shlex
import sys
from typing import Any

from graddoctor.locate import declare_user_file, forget_namer, name_files

_loaded: dict[int, Any] = {}  # id(shell) -> the namer registered for it
_watches: dict[int, Any] = {}  # id(shell) -> the session of `%graddoctor on` (kept after `off` for `report`)

_LINE_USAGE = "%graddoctor on | off | report  (or %%graddoctor [run options] on a cell)"


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext graddoctor`: register the `%graddoctor` line and cell magics and name cells in findings."""
    ipython.register_magic_function(_magic(ipython), magic_kind="line_cell", magic_name="graddoctor")
    if id(ipython) not in _loaded:
        namer = _cell_namer(ipython)
        name_files(namer)
        _loaded[id(ipython)] = namer


def unload_ipython_extension(ipython: Any) -> None:
    namer = _loaded.pop(id(ipython), None)
    if namer is not None:
        forget_namer(namer)
    session = _watches.pop(id(ipython), None)
    if session is not None and session.attached:
        session.detach()


def _cell_namer(ipython: Any):
    """IPython's cell files (`/tmp/ipykernel_…/….py`) shown as IPython shows them: `Cell In[3]`."""
    numbers = getattr(getattr(ipython, "compile", None), "_filename_map", None)

    def namer(filename: str) -> str | None:
        if isinstance(numbers, dict) and filename in numbers:
            return f"Cell In[{numbers[filename]}]"
        return None

    return namer


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="%%graddoctor", add_help=False, exit_on_error=False)
    parser.add_argument("--max-steps", type=int, default=None)
    parser.add_argument("--no-deep", action="store_true")
    parser.add_argument("--json", default=None)
    parser.add_argument("--html", default=None)
    parser.add_argument("--quiet", "-q", action="store_true")
    parser.add_argument("--fail-on", choices=("error", "warning", "info", "never"), default="warning")
    return parser


def _magic(ipython: Any):
    def graddoctor(line: str, cell: str | None = None):
        """`%%graddoctor [options]`: run this cell as `graddoctor run` runs a script and show the
        report below it. `%graddoctor on`: watch the training of every following cell until
        `%graddoctor off`; `%graddoctor report`: show the findings so far.

        Cell options as for `graddoctor run`: --max-steps N, --no-deep, --json FILE, --html FILE,
        --quiet (no report shown; the files are still written). --fail-on is accepted for
        copy-paste from the command line; a notebook has no exit code.
        """
        if cell is None:
            return line_magic(ipython, line.strip())
        try:
            opts = _parser().parse_args(shlex.split(line))
        except (argparse.ArgumentError, SystemExit) as exc:
            raise ValueError(f"%%graddoctor: {exc}; options: --max-steps N, --no-deep, --json FILE, "
                             "--html FILE, --quiet") from None
        return run_cell(ipython, cell, opts)

    return graddoctor


def run_cell(ipython: Any, cell: str, opts: argparse.Namespace):
    """Execute `cell` in the notebook's namespace under a run-mode session; display the report."""
    from graddoctor.assembly import standard_session
    from graddoctor.runner.lifecycle import Run

    filename = f"Cell In[{_cell_number(ipython)}]"
    source = "\n" + cell  # line 1 of the cell is the `%%graddoctor` line: keep the cell's numbering
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    declare_user_file(filename)
    code = compile(source, filename, "exec")
    session = standard_session(mode="run", deep=not opts.no_deep, max_steps=opts.max_steps,
                               namespace=ipython.user_ns)
    run = Run(session, command="run", target=filename)
    ending = run.execute(lambda: exec(code, ipython.user_ns))
    report = run.finish(static=True, cell=(filename, source))
    report.ran = "cell"
    run.write(opts.json, opts.html)
    if not opts.quiet:
        from IPython.display import display

        # HTML in Jupyter; the rich text report in a terminal IPython.
        display({"text/html": report._repr_html_(), "text/plain": str(report)}, raw=True)
    if ending.exception is not None:
        raise ending.exception
    return None


def line_magic(ipython: Any, command: str):
    """`on`, `off` or `report`: one watch per notebook, across cells."""
    from graddoctor.assembly import standard_session

    session = _watches.get(id(ipython))
    if command == "on":
        if session is not None and session.attached:
            return None  # already watching: a second `on` must not attach the observers twice
        session = standard_session(mode="watch", namespace=ipython.user_ns)
        _watches[id(ipython)] = session.attach()
        return None
    if command == "off":
        if session is not None and session.attached:
            session.detach()
        return None
    if command == "report":
        if session is None:
            raise ValueError("%graddoctor report: nothing watched yet; start with %graddoctor on")
        from graddoctor.runner.build_report import build_report

        report = build_report(session, command="watch")
        report.ran = "cell"
        return report  # shown as HTML by Report._repr_html_, as text in a terminal IPython
    raise ValueError(f"%graddoctor {command}: unknown; usage: {_LINE_USAGE}")


def _cell_number(ipython: Any) -> int:
    """The In[n] of the cell running this magic: the number IPython gave the cell's own file
    (execution_count is already the next one in some IPython versions)."""
    numbers = getattr(getattr(ipython, "compile", None), "_filename_map", None) or {}
    frame = sys._getframe(1)
    while frame is not None:
        number = numbers.get(frame.f_code.co_filename)
        if number is not None:
            return number
        frame = frame.f_back
    return ipython.execution_count
