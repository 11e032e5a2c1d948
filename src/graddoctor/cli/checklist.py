"""`graddoctor checklist`: print the verified checklists."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from graddoctor.checklist.render import markdown, text
from graddoctor.exits import EXIT_OK
from graddoctor.cli.parser import Parser


def checklist_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="graddoctor checklist",
        description='Print the "loss does not go down" and "gradient is None" checklists, '
        "each item tied to the code that checks it and the test that verified it.",
    )
    parser.add_argument("--format", choices=("text", "markdown"), default="text", help="output format (default: text)")
    opts = parser.parse_args(list(argv))
    if opts.format == "markdown":
        print(markdown(), end="")
    else:
        width = min(shutil.get_terminal_size((100, 24)).columns, 100)
        print(text(width=max(width, 60)), end="")
    return EXIT_OK
