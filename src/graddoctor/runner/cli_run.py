"""`graddoctor run`: print and write the report, and choose the exit code."""

from __future__ import annotations

import os
import sys

from graddoctor.runner.script import UsageError, print_user_traceback, run_target

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def run_command(opts, target: str, script_args: list[str]) -> int:
    for path in (opts.json, opts.html):
        if path:
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent):
                print(f"graddoctor run: error: cannot write {path}: no such directory {parent}", file=sys.stderr)
                return EXIT_USAGE
    try:
        outcome = run_target(target, script_args, module=bool(opts.module), max_steps=opts.max_steps, deep=not opts.no_deep)
    except UsageError as exc:
        print(f"graddoctor run: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    report = outcome.report
    sys.stdout.flush()
    if outcome.user_exception is not None and not isinstance(outcome.user_exception, KeyboardInterrupt):
        print_user_traceback(outcome.user_exception)
        sys.stderr.flush()
    internal = "\n".join(outcome.session.internal_errors)
    code = _exit_code(opts, outcome)
    dist = _distributed()
    if dist is not None:
        # Under torchrun: rank 0 gets the merged report; every rank the same exit code.
        from graddoctor.distributed.gather import gather

        gathered = gather(dist, report, outcome.session, code, opts.fail_on)
        report, code = gathered.report, gathered.code
        if not dist.is_main:
            if gathered.alone and not opts.quiet:
                from graddoctor.report.terminal import print_report

                print()
                print_report(report)
            _print_internal(internal)
            gathered.done()
            return code
    if opts.json:
        with open(opts.json, "w", encoding="utf-8") as handle:
            handle.write(report.to_json())
            handle.write("\n")
    if opts.html:
        with open(opts.html, "w", encoding="utf-8") as handle:
            handle.write(report.to_html())
    if not opts.quiet:
        from graddoctor.report.terminal import print_report

        print()
        print_report(report)
    _print_internal(internal)
    if dist is not None:
        gathered.done()
    return code


def _exit_code(opts, outcome) -> int:
    if outcome.session.internal_errors:
        return EXIT_INTERNAL
    if outcome.report.fails(opts.fail_on) or outcome.user_exception is not None:
        return EXIT_FINDINGS
    if outcome.exit_status:
        return outcome.exit_status
    return EXIT_OK


def _print_internal(details: str) -> None:
    if details:
        from graddoctor.cli import internal_error

        internal_error(details)


def _distributed():
    """This rank's context under torchrun (several ranks), else None."""
    from graddoctor.distributed.context import from_env

    return from_env()
