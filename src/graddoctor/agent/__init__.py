"""What a coding agent gets: graddoctor's commands as tools that answer with JSON.

`tools` runs each command (`graddoctor lint/run/fix/explain` in a child process, so that the
user's training code never runs inside the server, and the catalogue in-process) and returns
the JSON report; `compact` shrinks a report to what an agent acts on; `server` serves the
tools over the Model Context Protocol on stdio (`graddoctor mcp`, the `mcp` extra).
"""
