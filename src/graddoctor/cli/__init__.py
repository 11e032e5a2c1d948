"""The `graddoctor` command line.

`exits` (exit codes, internal errors) and `parser` are the pieces the command modules
(lint/cli.py, explain/cli.py, demo/cli.py, runner/cli_run.py, checklist/cli.py) import;
`commands` is the top-level dispatcher, which imports them only when a command runs, and
which no command module imports.
"""

from graddoctor.cli.commands import main

__all__ = ["main"]
