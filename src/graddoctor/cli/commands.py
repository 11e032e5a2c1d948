"""The `graddoctor` command: run, lint, fix, explain, demo, rules, checklist, mcp.

This module only dispatches: each command lives with the part it drives and is imported
when it runs, so that starting `graddoctor lint` never imports torch. Exit codes are
in `exits.py` (SPEC section 1).
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Sequence

from graddoctor.exits import EXIT_INTERNAL, EXIT_OK, EXIT_SIGINT, EXIT_USAGE, UsageFailure, internal_error, require
from graddoctor.cli.parser import Parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one graddoctor command; returns its exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(argv)
    except UsageFailure as exc:
        print(f"graddoctor: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("graddoctor: interrupted", file=sys.stderr)
        return EXIT_SIGINT
    except BrokenPipeError:
        return EXIT_OK
    except Exception:
        internal_error(traceback.format_exc())
        return EXIT_INTERNAL


_HELP = {
    "run": "run a training script under instrumentation",
    "lint": "check training code statically",
    "explain": "explain a PyTorch error message or traceback",
    "demo": "run the gallery of broken training loops",
    "rules": "list the finding catalogue, or show one rule",
    "checklist": "print the verified debugging checklists",
    "fix": "run a script, then show, verify and apply the edits that fix its findings",
    "mcp": "serve run, lint, explain, fix and rules to a coding agent (Model Context Protocol, stdio)",
}

# Commands that run the user's training code need torch; lint, explain, rules and checklist do not
# (torch is the optional `torch` extra). `mcp` needs the `mcp` extra. Checked before the command's
# module is imported, so a missing package is one line and exit 2, not an ImportError traceback.
_NEEDS = {
    "run": ("torch", "torch"),
    "fix": ("torch", "torch"),
    "demo": ("torch", "torch"),
    "mcp": ("mcp", "'graddoctor[mcp]'"),
}


def _main(argv: list[str]) -> int:
    parser = Parser(prog="graddoctor", description="Find why a PyTorch model does not learn, and where.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, text in _HELP.items():
        sub.add_parser(name, help=text, add_help=False)
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return EXIT_OK if argv else EXIT_USAGE
    if argv[0] == "--version":
        from graddoctor._version import __version__

        print(f"graddoctor {__version__}")
        return EXIT_OK
    command, rest = argv[0], argv[1:]
    if command not in _HELP:
        parser.error(f"unknown command {command!r}; choose from {', '.join(_HELP)}")
    return _handler(command)(rest)


def _handler(command: str) -> Callable[[list[str]], int]:
    """The command's entry point, imported only now (lint must not pay for torch)."""
    if command in _NEEDS:
        module, install = _NEEDS[command]
        require(module, f"graddoctor {command}", install)
    if command == "run":
        from functools import partial

        from graddoctor.fix.attach import attach_known
        from graddoctor.cli.run import run_main

        # `run` shows each finding's known edit; the runner itself knows nothing of fix/.
        return partial(run_main, attach_edits=attach_known)
    if command == "lint":
        from graddoctor.cli.lint import lint_command

        return lint_command
    if command == "explain":
        from graddoctor.cli.explain import explain_command

        return explain_command
    if command == "demo":
        from graddoctor.cli.demo import demo_command

        return demo_command
    if command == "fix":
        from graddoctor.cli.fix import fix_main

        return fix_main
    if command == "mcp":
        from graddoctor.cli.mcp import mcp_command

        return mcp_command
    if command == "rules":
        from graddoctor.cli.catalogue import rules_command

        return rules_command
    from graddoctor.cli.checklist import checklist_command

    return checklist_command


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
