"""`graddoctor mcp`: the tools of agent/tools.py over the Model Context Protocol, on stdio.

Built on the official Python SDK (`pip install 'graddoctor[mcp]'`). stdout is the protocol's
channel: nothing else may print there, which is why every command runs in a child process
whose output is captured.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from graddoctor.agent import tools

INSTRUCTIONS = """\
graddoctor finds why a PyTorch model does not learn and names the line of the user's code.
- lint: read training code without running it (fast, no torch needed). Start here.
- run: run a training script under instrumentation (pass max_steps, e.g. 20, to keep it short);
  findings carry measured evidence and the user's file:line.
- fix: run, plan edits for the findings, verify each by re-running the edited program; with
  write=true it writes only the verified edits to the files.
- explain: explain a PyTorch error message or a whole traceback.
- rules: the catalogue, or one rule's documentation by code (GD104) or name.
Every answer is a graddoctor.report/1 JSON document plus exit_code (0 clean, 1 findings at or
above warning or the script raised, 2 usage error, 3 graddoctor's own bug); compact=true gives
only the findings, each with file:line, evidence and edit, and a one-sentence summary.
"""


def _said(tool: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """A command that gave no report answers with its own message as the tool's error (the SDK hides others')."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(tool)
    def call(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return tool(*args, **kwargs)
        except tools.ToolFailed as exc:
            raise ToolError(str(exc)) from None

    return call


def build():
    """The MCP server with graddoctor's five tools."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:  # mcp 1.x: the same server was FastMCP, with another API
        from graddoctor.exits import MissingPackage

        raise MissingPackage("graddoctor mcp needs version 2 or later of the 'mcp' package: pip install -U 'mcp>=2'",
                             name="mcp") from None

    from graddoctor._version import __version__

    server = MCPServer("graddoctor", instructions=INSTRUCTIONS, version=__version__)

    @server.tool(description="Lint Python training code statically (files or folders); no torch, nothing runs.")
    def lint(paths: list[str], select: list[str] | None = None, ignore: list[str] | None = None,
             compact: bool = False) -> dict[str, Any]:
        return _said(tools.lint)(paths, select, ignore, compact)

    @server.tool(description="Run a training script under graddoctor (in a child process) and report what is wrong.")
    def run(script: str, args: list[str] | None = None, max_steps: int | None = None,
            compact: bool = False) -> dict[str, Any]:
        return _said(tools.run)(script, args, max_steps, compact)

    @server.tool(description="Run a script, plan edits for its findings and verify each by re-running the edited "
                             "program; write=true writes only the verified edits to the user's files.")
    def fix(script: str, args: list[str] | None = None, max_steps: int | None = None, write: bool = False,
            compact: bool = False) -> dict[str, Any]:
        return _said(tools.fix)(script, args, max_steps, write, compact)

    @server.tool(description="Explain a PyTorch error message, or a whole traceback (then it names the user's line).")
    def explain(message: str, compact: bool = False) -> dict[str, Any]:
        return _said(tools.explain)(message, compact)

    @server.tool(description="The finding catalogue, or one rule's documentation (code like GD104, or its name).")
    def rules(code: str | None = None) -> dict[str, Any]:
        return _said(tools.rules)(code)

    return server


def serve() -> None:
    """Serve on stdin/stdout until the client closes the connection."""
    build().run("stdio")
