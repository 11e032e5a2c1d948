"""The `graddoctor` command line.

One module per command (run, lint, fix, explain, demo, catalogue for `rules`, checklist),
each parsing its own options with `parser` and returning an exit code from `graddoctor.exits`;
`commands` is the top-level dispatcher, which imports them only when a command runs, and
which no command module imports.
"""

from graddoctor.cli.commands import main

__all__ = ["main"]
