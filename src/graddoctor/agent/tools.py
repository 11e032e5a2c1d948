"""graddoctor's commands as functions that return JSON documents (the tools `graddoctor mcp` serves).

lint, run, fix and explain run the real command line in a child process (`python -m graddoctor`):
the user's training code never runs inside the server, a crash or `sys.exit` of theirs cannot
end it, and what an agent gets is exactly what the command gives. Each answer is the
`graddoctor.report/1` document, plus `exit_code` (the command's, SPEC section 1) and, for
`run` and `fix`, `output` (the end of what the script printed). With `compact=True` it is the
`graddoctor.compact/1` form instead (agent/compact.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from graddoctor.agent.compact import compact as compact_form

OUTPUT_TAIL = 4000  # characters of the script's own output kept: its traceback, its last prints


class ToolFailed(Exception):
    """The command gave no report (a usage error, or graddoctor's own failure): its message, for the agent."""


def lint(paths: list[str], select: list[str] | None = None, ignore: list[str] | None = None,
         compact: bool = False) -> dict[str, Any]:
    """`graddoctor lint --format json PATHS`."""
    argv = ["lint", "--format", "json", *paths]
    if select:
        argv += ["--select", ",".join(select)]
    if ignore:
        argv += ["--ignore", ",".join(ignore)]
    done = _graddoctor(argv)
    return _answer(json_of(done), done, compact, output=False)


def run(script: str, args: list[str] | None = None, max_steps: int | None = None, compact: bool = False,
        timeout_s: float = 1800) -> dict[str, Any]:
    """`graddoctor run --json FILE [--max-steps N] SCRIPT ARGS...`."""
    return _run_like("run", [], script, args, max_steps, compact, timeout_s)


def fix(script: str, args: list[str] | None = None, max_steps: int | None = None, write: bool = False,
        compact: bool = False, timeout_s: float = 3600) -> dict[str, Any]:
    """`graddoctor fix --verify [--write]`: every edit is proved by a re-run; `write` writes only the verified ones."""
    return _run_like("fix", ["--verify"] + (["--write"] if write else []), script, args, max_steps, compact, timeout_s)


def explain(message: str, compact: bool = False) -> dict[str, Any]:
    """`graddoctor explain --format json`, the message or whole traceback on stdin."""
    done = _graddoctor(["explain", "--format", "json"], stdin=message)
    return _answer(json_of(done), done, compact, output=False)


def rules(code: str | None = None) -> dict[str, Any]:
    """The catalogue (code, name, severity, summary, page), or one rule's whole documentation."""
    from graddoctor.report.sarif import help_uri
    from graddoctor.rules import all_rules, get_rule

    def row(rule) -> dict[str, Any]:
        return {"code": rule.code, "name": rule.name, "severity": str(rule.severity), "summary": rule.summary,
                "hint": rule.hint, "page": help_uri(rule.code)}

    if code is None:
        return {"rules": [row(r) for r in all_rules()]}
    try:
        rule = get_rule(code.upper())
    except KeyError:
        matches = [r for r in all_rules() if r.name == code.lower()]
        if not matches:
            raise ToolFailed(f"no rule {code!r}; call rules without a code for the list") from None
        rule = matches[0]
    return {**row(rule), "doc": rule.doc}


def _run_like(command: str, extra: list[str], script: str, args: list[str] | None, max_steps: int | None,
              compact: bool, timeout_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="graddoctor-mcp-") as folder:
        report_path = Path(folder) / "report.json"
        argv = [command, *extra, "--quiet", "--json", str(report_path)]
        if max_steps is not None:
            argv += ["--max-steps", str(max_steps)]
        done = _graddoctor(argv + [script, *(args or [])], timeout_s=timeout_s)
        if not report_path.exists():
            raise ToolFailed(_failure(done))
        report = json.loads(report_path.read_text(encoding="utf-8"))
    return _answer(report, done, compact, output=True)


def json_of(done: subprocess.CompletedProcess) -> dict[str, Any]:
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise ToolFailed(_failure(done)) from None


def _answer(report: dict[str, Any], done: subprocess.CompletedProcess, compact: bool, output: bool) -> dict[str, Any]:
    if compact:
        return compact_form(report, done.returncode)
    answer = {**report, "exit_code": done.returncode}
    if output:
        answer["output"] = (done.stdout + done.stderr)[-OUTPUT_TAIL:]
    return answer


def _failure(done: subprocess.CompletedProcess) -> str:
    said = (done.stderr.strip() or done.stdout.strip())[-OUTPUT_TAIL:]
    return f"graddoctor exited with {done.returncode} and no report: {said or 'no message'}"


def _graddoctor(argv: list[str], stdin: str | None = None, timeout_s: float = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1")
    try:
        return subprocess.run([sys.executable, "-m", "graddoctor", *argv], input=stdin, capture_output=True,
                              text=True, env=env, timeout=timeout_s, stdin=None if stdin is not None else subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ToolFailed(f"graddoctor {argv[0]} did not finish within {timeout_s:.0f} s; "
                         "pass max_steps to stop the script earlier") from None
