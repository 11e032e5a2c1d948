"""`graddoctor mcp` through the official MCP Python SDK's own client, over stdio, as an agent uses it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

mcp = pytest.importorskip("mcp")
import anyio  # noqa: E402  (the SDK's own dependency)
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
REPORT_SCHEMA = json.loads((ROOT / "src/graddoctor/report/schema.json").read_text())

BROKEN = """\
import torch

losses = []
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.item().backward()
    optimizer.step()
    losses.append(loss)
"""


def session_calls(folder: Path, calls: list[tuple[str, dict]]) -> tuple[list[str], list]:
    """Start `python -m graddoctor mcp` in `folder`, list its tools and make `calls`; (tool names, results)."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "graddoctor", "mcp"], cwd=str(folder),
        env={"PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"},
    )

    async def go():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                names = [tool.name for tool in (await session.list_tools()).tools]
                results = [await session.call_tool(name, arguments, read_timeout_seconds=900) for name, arguments in calls]
                return names, results

    return anyio.run(go)


def answer(result) -> dict:
    """A tool's structured answer, which its text content repeats as JSON."""
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def test_lint_explain_and_rules_over_stdio(tmp_path):
    (tmp_path / "train.py").write_text(BROKEN)
    (tmp_path / "clean.py").write_text("import torch\nprint(torch.ones(2).sum())\n")
    names, results = session_calls(tmp_path, [
        ("lint", {"paths": ["train.py"]}),
        ("lint", {"paths": ["train.py"], "compact": True}),
        ("lint", {"paths": ["clean.py"], "compact": True}),
        ("explain", {"message": "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"}),
        ("rules", {"code": "graph-kept-alive"}),
        ("rules", {}),
        ("lint", {"paths": ["missing.py"]}),
    ])
    assert sorted(names) == ["explain", "fix", "lint", "rules", "run"]
    full, small, clean, explained, rule, catalogue = (answer(r) for r in results[:6])
    jsonschema.validate(full, REPORT_SCHEMA)
    assert full["exit_code"] == 1 and [f["code"] for f in full["findings"]] == ["GD101", "GD207"]
    assert small["schema"] == "graddoctor.compact/1"
    assert small["summary"].startswith("graddoctor found 2 problems in train.py: 1 error, 1 warning")
    assert [(f["where"], f["code"]) for f in small["findings"]] == [("train.py:7", "GD101"), ("train.py:9", "GD207")]
    assert set(small["findings"][0]) == {"where", "code", "severity", "message", "hint", "evidence", "edit"}
    assert clean == {"schema": "graddoctor.compact/1", "command": "lint", "target": ["clean.py"],
                     "summary": "graddoctor found nothing in clean.py.", "findings": [], "exit_code": 0}
    jsonschema.validate(explained, REPORT_SCHEMA)
    assert explained["command"] == "explain" and explained["exit_code"] == 0 and explained["findings"]
    assert rule["code"] == "GD207" and "## Why is this bad?" in rule["doc"]
    assert rule["page"].endswith("/docs/rules/GD207.md")
    assert {"GD001", "GD104", "GD207"} <= {r["code"] for r in catalogue["rules"]}
    # A usage error is the tool's error, in the command's own words.
    assert results[6].is_error and "missing.py" in results[6].content[0].text


def test_run_and_fix_write_only_verified_edits(tmp_path):
    """A regression that never clears its gradients: `run` names the line, `fix` proves zero_grad() and writes it."""
    shutil.copy(ROOT / "tests/fix/programs/gd201_regression.py", tmp_path / "train.py")
    original = (tmp_path / "train.py").read_text()
    _, results = session_calls(tmp_path, [
        ("run", {"script": "train.py", "max_steps": 10, "compact": True}),
        ("fix", {"script": "train.py", "write": False}),
        ("fix", {"script": "train.py", "write": True}),
    ])
    ran, shown, written = (answer(r) for r in results)
    assert ran["exit_code"] == 1 and ran["findings"][0]["code"] == "GD201"
    assert ran["findings"][0]["where"] == "train.py:15"  # the step that applies the summed gradients
    jsonschema.validate(shown, REPORT_SCHEMA)
    [gd201] = [f for f in shown["findings"] if f["code"] == "GD201"]
    assert gd201["fix"]["verified"] is True and "+    optimizer.zero_grad()" in gd201["fix"]["diff"]
    assert "output" in shown
    # write=false changed nothing; write=true wrote the verified edit and nothing else.
    after = (tmp_path / "train.py").read_text()
    assert after != original and "zero_grad()" in after
    assert after.replace("    optimizer.zero_grad()\n", "") == original


def test_without_the_mcp_extra_it_says_so_in_one_line(tmp_path):
    hide = textwrap.dedent("""\
        import sys

        class HideMcp:
            def find_spec(self, name, path=None, target=None):
                if name == "mcp" or name.startswith("mcp."):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)

        sys.meta_path.insert(0, HideMcp())
        from graddoctor.cli import main
        sys.exit(main(["mcp"]))
        """)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run([sys.executable, "-c", hide], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "graddoctor: error: graddoctor mcp needs the 'mcp' package, which is not installed: pip install 'graddoctor[mcp]'"
    ]
