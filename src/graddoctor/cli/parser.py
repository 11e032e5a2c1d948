"""The argument parser every command uses: usage errors as one line and exit code 2."""

from __future__ import annotations

import argparse

from graddoctor.exits import EXIT_USAGE


class Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one clear line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of steps of at least 1, got {value}")
    return value
