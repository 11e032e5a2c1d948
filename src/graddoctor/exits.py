"""Exit codes and graddoctor's own failures (SPEC section 1), shared by every command.

0 nothing at or above --fail-on; 1 findings (or the user's script raised); 2 usage
errors and unreadable paths; 3 graddoctor's own failure, always shown with a request
to report it; 128 + N when the run was stopped by signal N (130 Ctrl-C, 143 SIGTERM).
"""

from __future__ import annotations

import sys

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_SIGINT, EXIT_SIGTERM = 130, 143
ISSUES_URL = "https://github.com/graddoctor/graddoctor/issues"
# The --fail-on choices, from the strictest threshold to "never fail".


class UsageFailure(Exception):
    """A usage error found after parsing (a missing rule, a bad path): exit code 2."""


class MissingPackage(UsageFailure, ModuleNotFoundError):
    """An optional package a command needs is not installed: exit code 2 on the command line, and an
    ImportError (naming the package) to Python code that catches those."""


def installed(module: str) -> bool:
    """Whether `module` can be imported, found without importing it (torch takes seconds to import)."""
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module with no spec
        return False


def require(module: str, what: str, install: str) -> None:
    """Raise MissingPackage, in one line naming the package and how to install it, unless `module` is installed."""
    if not installed(module):
        raise MissingPackage(f"{what} needs the {module!r} package, which is not installed: pip install {install}",
                             name=module)


def internal_error(details: str) -> None:
    """Print graddoctor's own failure on stderr, with where to report it."""
    print(
        "graddoctor: internal error: this is a bug in graddoctor, not in your code.\n"
        f"Please report it at {ISSUES_URL} with a minimal script that shows it, "
        "and the details below.\n" + details,
        file=sys.stderr,
    )
