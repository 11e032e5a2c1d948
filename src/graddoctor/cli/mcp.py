"""`graddoctor mcp`: serve run, lint, explain, fix and rules to a coding agent over MCP (stdio)."""

from __future__ import annotations

from graddoctor.cli.parser import Parser
from graddoctor.exits import EXIT_OK


def mcp_command(argv: list[str]) -> int:
    parser = Parser(
        prog="graddoctor mcp",
        description="Serve graddoctor's run, lint, explain, fix and rules as Model Context Protocol tools on "
        "stdin/stdout, for a coding agent. Needs the mcp extra: pip install 'graddoctor[mcp]'. See AGENTS.md.",
    )
    parser.parse_args(argv)
    from graddoctor.agent.server import serve

    serve()
    return EXIT_OK
