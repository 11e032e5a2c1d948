"""`graddoctor run`: print and write the report, and choose the exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from graddoctor.exits import (
    EXIT_FINDINGS,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    EXIT_USAGE,
    internal_error,
)
from graddoctor.cli.parser import Parser, positive_int
from graddoctor.finding import FAIL_ON
from graddoctor.internal import record_internal_error
from graddoctor.runner.outputs import print_formatted, print_terminal, write_files
from graddoctor.finding import Finding
from graddoctor.report.report import Report
from graddoctor.runner.script import RunOutcome, UsageError, print_user_traceback, run_target
from graddoctor.runner.signals import Interrupts, Terminated

T = TypeVar("T")

_RUN_VALUED = {"--json", "--html", "--max-steps", "--fail-on", "--format", "--output", "-o", "-m"}
_RUN_FLAGS = {"--quiet", "-q", "--no-deep", "-h", "--help"}


def split_run_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """Options for graddoctor come before SCRIPT (or -m MODULE); the rest is the script's."""
    i = 0
    while i < len(argv):
        token = argv[i]
        name = token.split("=", 1)[0]
        if name in _RUN_VALUED:
            step = 1 if "=" in token else 2
            if name == "-m":
                return argv[: i + step], argv[i + step :]
            i += step
        elif token in _RUN_FLAGS or token.startswith("-"):
            i += 1
        else:
            return argv[: i + 1], argv[i + 1 :]
    return argv, []


def run_parser() -> Parser:
    p = Parser(prog="graddoctor run", description="Run SCRIPT as __main__ under instrumentation and report what is wrong.")
    p.add_argument("script", nargs="?", help="the training script (its own arguments follow it)")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a module, like python -m MODULE")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON (graddoctor.report/1)")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--max-steps", type=positive_int, metavar="N",
                   help="stop the script cleanly after N optimizer steps (all optimizers together)")
    p.add_argument("--fail-on", choices=FAIL_ON, default="warning", help="lowest severity that makes the exit code 1 (default: warning)")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                   help="the report printed when the script ends: text, JSON or SARIF 2.1.0 (default: text)")
    p.add_argument("--output", "-o", metavar="FILE", help="with --format json or sarif: write that report to FILE instead of stdout")
    p.add_argument("--quiet", "-q", action="store_true", help="print no report (files are still written)")
    p.add_argument("--no-deep", action="store_true", help="skip cut provenance (cheaper, fewer lines named)")
    return p


def run_main(argv: list[str], *, attach_edits: Callable[[list[Finding], str], list[Finding]] | None = None) -> int:
    """`graddoctor run [OPTIONS] SCRIPT [ARGS...]` or `graddoctor run [OPTIONS] -m MODULE [ARGS...]`.

    `attach_edits(findings, folder)` returns the findings with their known edit (SPEC section 2); the
    dispatcher passes `fix`'s, so that this package does not depend on `fix/`."""
    ours, script_args = split_run_args(argv)
    parser = run_parser()
    opts = parser.parse_args(ours)
    if opts.module and opts.script:
        script_args = [opts.script] + script_args
        opts.script = None
    target = opts.module or opts.script
    if not target:
        parser.error("give a SCRIPT to run, or -m MODULE")
    with run_command(opts, target, script_args) as ran:
        if ran.code is None:
            if attach_edits is not None and ran.dist is None:
                with_edits = ran.guard(attach_edits, ran.report.findings, ran.root)
                if with_edits is not None:
                    ran.report.findings = with_edits
            report_run(ran)
    return ran.code


@dataclass
class RunResult:
    """What `graddoctor run` did: the run's outcome, the exit code, and where the report goes."""

    opts: Any
    target: str
    args: list[str]
    outcome: RunOutcome | None = None  # None when the script could not be started
    code: int | None = None  # decided by a usage error, or by report_run
    dist: Any = None  # this rank's context under torchrun, else None

    @property
    def report(self) -> Report:
        return self.outcome.report

    @property
    def root(self) -> str:
        """The folder of the user's files: the script's, or the current one with -m."""
        return os.getcwd() if self.opts.module else os.path.dirname(os.path.abspath(self.target))

    @property
    def html_path(self) -> str | None:
        return self.opts.html

    def guard(self, step: Callable[..., T], *args) -> T | None:
        """Run one of graddoctor's own steps after the run; its failure is our bug, shown (exit 3), not hidden."""
        try:
            return step(*args)
        except Exception:  # the diagnosis is still printed, and the failure with it
            record_internal_error(self.outcome.session, getattr(step, "__name__", "a step after the run"))
            return None


@contextmanager
def run_command(opts, target: str, script_args: list[str]) -> Iterator[RunResult]:
    """Run the script; the block that follows makes the report. Ctrl-C and SIGTERM are handled
    until the block ends: during the script they stop it, afterwards they abort at once.

    `ran.code` is set when the script could not be run (a usage error); otherwise the block
    decides it (`report_run`)."""
    ran = RunResult(opts, target, list(script_args))
    for path in (opts.json, opts.html, opts.output):
        if path:
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent):
                print(f"graddoctor run: error: cannot write {path}: no such directory {parent}", file=sys.stderr)
                ran.code = EXIT_USAGE
                yield ran
                return
    ran.dist = _distributed()
    with Interrupts(sigterm=ran.dist is None) as interrupts:
        try:
            ran.outcome = run_target(target, script_args, module=bool(opts.module), max_steps=opts.max_steps,
                                     deep=not opts.no_deep)
        except UsageError as exc:
            print(f"graddoctor run: error: {exc}", file=sys.stderr)
            ran.code = EXIT_USAGE
            yield ran
            return
        interrupts.script_ended()
        yield ran
    _hint_misplaced(script_args, target)


def report_run(ran: RunResult) -> int:
    """Print the report, then write the files (each on its own); sets and returns the exit code."""
    ran.code = _report(ran.opts, ran.outcome, ran.dist)
    return ran.code


def _report(opts, outcome, dist) -> int:
    """Print the report, then write the files (each on its own); returns the exit code."""
    report = outcome.report
    sys.stdout.flush()
    if outcome.report.status == "crashed":
        print_user_traceback(outcome.user_exception)
        sys.stderr.flush()
    internal = "\n".join(outcome.session.internal_errors)
    code = _exit_code(opts, outcome)
    if dist is not None:
        # Under torchrun: rank 0 gets the merged report; every rank the same exit code.
        from graddoctor.runner.gather import gather

        gathered = gather(dist, report, outcome.session, code, opts.fail_on)
        report, code = gathered.report, gathered.code
        if not dist.is_main:
            if gathered.alone and not opts.quiet:
                print_terminal(report)
            _print_internal(internal)
            gathered.done()
            return code
    if dist is None:  # under torchrun the code is agreed across ranks, from the merged report
        code = _explained(code, report, outcome, opts.fail_on)
    # The report first: whatever happens to the files, the user has the diagnosis.
    if opts.format == "text":
        printed = opts.quiet or print_terminal(report)
        rendered, written = write_files(report, opts.json, opts.html)
    else:
        printed, written_out = print_formatted(report, opts.format, opts.output)
        rendered, written = write_files(report, opts.json, opts.html)
        written = written and written_out
    _print_internal(internal)
    if not (printed and rendered):
        code = EXIT_INTERNAL
    elif not written and code == EXIT_OK:
        code = EXIT_USAGE
    if dist is not None:
        gathered.done()
    return code


def _exit_code(opts, outcome) -> int:
    if outcome.session.internal_errors:
        return EXIT_INTERNAL
    if outcome.report.status == "interrupted":
        return EXIT_SIGTERM if isinstance(outcome.user_exception, Terminated) else EXIT_SIGINT
    if outcome.report.fails(opts.fail_on) or outcome.user_exception is not None:
        return EXIT_FINDINGS
    if outcome.exit_status:
        return outcome.exit_status
    return EXIT_OK


def _explained(code: int, report, outcome, fail_on: str) -> int:
    """The exit code must be one the printed report explains; otherwise it is our bug, said as such.

    1 means a finding at or above --fail-on, or the user's exception (or their own sys.exit(1));
    0 means neither. Anything else from this point is graddoctor failing, never silent."""
    if code not in (EXIT_OK, EXIT_FINDINGS):
        return code
    cause = report.fails(fail_on) or outcome.user_exception is not None
    own = outcome.exit_status if outcome.exit_status else None
    if code == EXIT_FINDINGS and not cause and own != EXIT_FINDINGS:
        problem = f"exit code 1 with no finding at or above --fail-on {fail_on} and no exception of the script"
    elif code == EXIT_OK and cause:
        problem = f"exit code 0 although the report has a finding at or above --fail-on {fail_on} or an exception"
    else:
        return code
    internal_error(f"graddoctor run chose an exit code its report does not explain: {problem}")
    return EXIT_INTERNAL


_OWN_OPTIONS = sorted(_RUN_VALUED - {"-m"}) + sorted(_RUN_FLAGS - {"-h", "--help"})


def _hint_misplaced(script_args: list[str], target: str) -> None:
    """`graddoctor run train.py --json out.json`: the option went to the script, as Python's rules say; say so once."""
    misplaced: list[str] = []
    example: list[str] = []
    for i, token in enumerate(script_args):
        name = token.split("=", 1)[0]
        if name not in _OWN_OPTIONS or name in misplaced:
            continue
        misplaced.append(name)
        if not example:
            takes_value = name in _RUN_VALUED and "=" not in token and i + 1 < len(script_args)
            example = [token, script_args[i + 1]] if takes_value else [token]
    if not misplaced:
        return
    print(
        f"graddoctor: note: {', '.join(misplaced)} came after {target}, so the script received "
        f"{'it' if len(misplaced) == 1 else 'them'}, not graddoctor; put graddoctor's options before the "
        f"script name: graddoctor run {' '.join(example)} {target}",
        file=sys.stderr,
    )


def _print_internal(details: str) -> None:
    if details:
        internal_error(details)


def _distributed():
    """This rank's context under torchrun (several ranks), else None."""
    from graddoctor.distributed.context import from_env

    return from_env()
