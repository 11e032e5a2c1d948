"""The `graddoctor` command: run, lint, explain, demo, rules, checklist.

Exit codes (SPEC section 1): 0 nothing at or above --fail-on; 1 findings (or the
user's script raised); 2 usage errors and unreadable paths; 3 graddoctor's own
failure, always shown with a request to report it.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
ISSUES_URL = "https://github.com/graddoctor/graddoctor/issues"
FAIL_ON = ("error", "warning", "info", "never")


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one clear line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class UsageFailure(Exception):
    pass


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(argv)
    except UsageFailure as exc:
        print(f"graddoctor: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("graddoctor: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception:
        internal_error(traceback.format_exc())
        return EXIT_INTERNAL


def internal_error(details: str) -> None:
    print(
        "graddoctor: internal error: this is a bug in graddoctor, not in your code.\n"
        f"Please report it at {ISSUES_URL} with a minimal script that shows it, "
        "and the details below.\n" + details,
        file=sys.stderr,
    )


def _main(argv: list[str]) -> int:
    parser = _Parser(prog="graddoctor", description="Find why a PyTorch model does not learn, and where.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("run", help="run a training script under instrumentation", add_help=False)
    sub.add_parser("lint", help="check training code statically", add_help=False)
    sub.add_parser("explain", help="explain a PyTorch error message or traceback", add_help=False)
    sub.add_parser("demo", help="run the gallery of broken training loops", add_help=False)
    sub.add_parser("rules", help="list the finding catalogue, or show one rule", add_help=False)
    sub.add_parser("checklist", help="print the verified debugging checklists", add_help=False)
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return EXIT_OK if argv else EXIT_USAGE
    if argv[0] == "--version":
        from graddoctor._version import __version__

        print(f"graddoctor {__version__}")
        return EXIT_OK
    command, rest = argv[0], argv[1:]
    handlers = {
        "run": _cmd_run,
        "lint": _cmd_lint,
        "explain": _cmd_explain,
        "demo": _cmd_demo,
        "rules": _cmd_rules,
        "checklist": _cmd_checklist,
    }
    if command not in handlers:
        parser.error(f"unknown command {command!r}; choose from {', '.join(handlers)}")
    return handlers[command](rest)


# --- run ------------------------------------------------------------------------------------

_RUN_VALUED = {"--json", "--html", "--max-steps", "--fail-on", "-m"}
_RUN_FLAGS = {"--quiet", "-q", "--no-deep", "-h", "--help"}


def _split_run_args(argv: list[str]) -> tuple[list[str], list[str]]:
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


def _run_parser() -> _Parser:
    p = _Parser(prog="graddoctor run", description="Run SCRIPT as __main__ under instrumentation and report what is wrong.")
    p.add_argument("script", nargs="?", help="the training script (its own arguments follow it)")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a module, like python -m MODULE")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON (graddoctor.report/1)")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--max-steps", type=_positive_int, metavar="N", help="stop the script cleanly after N optimizer steps")
    p.add_argument("--fail-on", choices=FAIL_ON, default="warning", help="lowest severity that makes the exit code 1 (default: warning)")
    p.add_argument("--quiet", "-q", action="store_true", help="print no report (files are still written)")
    p.add_argument("--no-deep", action="store_true", help="skip cut provenance (cheaper, fewer lines named)")
    return p


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of steps of at least 1, got {value}")
    return value


def _cmd_run(argv: list[str]) -> int:
    ours, script_args = _split_run_args(argv)
    parser = _run_parser()
    opts = parser.parse_args(ours)
    if opts.module and opts.script:
        script_args = [opts.script] + script_args
        opts.script = None
    target = opts.module or opts.script
    if not target:
        parser.error("give a SCRIPT to run, or -m MODULE")
    from graddoctor.runner.cli_run import run_command

    return run_command(opts, target, script_args)


# --- the other commands -----------------------------------------------------------------------


def _cmd_lint(argv: list[str]) -> int:
    from graddoctor.lint.cli import lint_command

    return lint_command(argv)


def _cmd_explain(argv: list[str]) -> int:
    from graddoctor.explain.cli import explain_command

    return explain_command(argv)


def _cmd_demo(argv: list[str]) -> int:
    from graddoctor.demo.cli import demo_command

    return demo_command(argv)


def _cmd_rules(argv: list[str]) -> int:
    parser = _Parser(prog="graddoctor rules", description="List the finding catalogue, or print one rule's documentation.")
    parser.add_argument("code", nargs="?", help="a code such as GD104 (or its name)")
    opts = parser.parse_args(argv)
    from graddoctor.rules import all_rules, get_rule

    if opts.code:
        wanted = opts.code.strip()
        rule = next((r for r in all_rules() if r.name == wanted), None)
        if rule is None:
            try:
                rule = get_rule(wanted)
            except KeyError:
                raise UsageFailure(f"no rule {wanted!r}; 'graddoctor rules' lists them") from None
        print(f"{rule.code} {rule.name} ({rule.severity}, {_detected(rule.detected)})\n")
        print(rule.doc.split("\n", 1)[1].strip() if "\n" in rule.doc else rule.doc)
        print(f"\nFix: {rule.hint}")
        return EXIT_OK
    width = max(len(r.name) for r in all_rules())
    for rule in all_rules():
        print(f"{rule.code}  {rule.name:<{width}}  {str(rule.severity):<7}  {rule.detected:<2}  {rule.summary}")
    return EXIT_OK


def _detected(kind: str) -> str:
    return {"R": "runtime", "S": "static", "RS": "runtime and static"}[kind]


def _cmd_checklist(argv: list[str]) -> int:
    from graddoctor.checklist.cli import checklist_command

    return checklist_command(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
