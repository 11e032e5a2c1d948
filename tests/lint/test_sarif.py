"""SARIF for code scanning: help links that resolve, fingerprints that survive line moves, runtime findings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from graddoctor.report import sarif as sarif_mod
from graddoctor.rules import all_rules

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = json.loads((Path(__file__).parent / "sarif-2.1.0-rtm.5.schema.json").read_text())
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

LOOP = """\
import torch

losses = []
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.item().backward()
    optimizer.step()
    losses.append(loss)
"""


def sarif_of(lint_cli, *paths: str) -> dict:
    log = json.loads(lint_cli("--format", "sarif", *paths).stdout)
    jsonschema.validate(log, SARIF_SCHEMA)
    return log


def test_every_rule_page_link_resolves_to_a_page_in_the_repository():
    repository = PYPROJECT["project"]["urls"]["Repository"]
    assert sarif_mod.repository() == repository == sarif_mod.REPOSITORY
    for rule in all_rules():
        uri = sarif_mod.help_uri(rule.code)
        assert uri.startswith(f"{repository}/blob/main/")
        page = ROOT / uri.removeprefix(f"{repository}/blob/main/")
        assert page.is_file(), f"{rule.code}: {uri} names no file of the repository"
        assert page.read_text().startswith(f"# {rule.code}")


def test_the_log_links_each_rule_to_its_page(lint_cli):
    (lint_cli.path / "train.py").write_text(LOOP)
    rules = sarif_of(lint_cli, "train.py")["runs"][0]["tool"]["driver"]["rules"]
    assert {r["id"]: r["helpUri"] for r in rules} == {
        code: f"https://github.com/graddoctor/graddoctor/blob/main/docs/rules/{code}.md" for code in ("GD101", "GD207")
    }


def fingerprints(log: dict) -> dict[tuple[str, int], str]:
    return {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]): r["partialFingerprints"]["graddoctor/v1"]
        for r in log["runs"][0]["results"]
    }


def test_fingerprints_do_not_change_when_lines_are_added_above(lint_cli):
    path = lint_cli.path / "train.py"
    path.write_text(LOOP)
    before = fingerprints(sarif_of(lint_cli, "train.py"))
    path.write_text('"""Training."""\nimport os\n\n\n' + LOOP.replace("import torch\n", "import torch\nimport math\n"))
    after = fingerprints(sarif_of(lint_cli, "train.py"))
    assert sorted(before) == [("GD101", 7), ("GD207", 9)]
    assert sorted(after) == [("GD101", 12), ("GD207", 14)]
    assert before[("GD101", 7)] == after[("GD101", 12)] and before[("GD207", 9)] == after[("GD207", 14)]


def test_fingerprints_tell_apart_what_differs(lint_cli):
    """Another file, another line text, or a second identical line: another fingerprint."""
    (lint_cli.path / "a.py").write_text(LOOP + "    losses.append(loss)\n")
    (lint_cli.path / "b.py").write_text(LOOP.replace("losses.append(loss)", "losses.append( loss )"))
    prints = [r["partialFingerprints"]["graddoctor/v1"] for r in sarif_of(lint_cli, "a.py", "b.py")["runs"][0]["results"]]
    assert len(prints) == 5 and len(set(prints)) == 5


def test_run_writes_sarif_for_runtime_findings(tmp_path):
    """`graddoctor run --format sarif`: a real run whose loss turns NaN at its third step, as a valid SARIF log."""
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""\
        import torch
        from torch import nn

        torch.manual_seed(0)
        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(16, 4), torch.randn(16, 1)
        for i in range(4):
            optimizer.zero_grad()
            out = model(x)
            penalty = torch.log(-out.sum() * 0 - 1) if i == 2 else 0  # log(-1): NaN on the third batch
            loss = nn.functional.mse_loss(out, y) + penalty
            loss.backward()
            optimizer.step()
        """))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "graddoctor", "run", "--format", "sarif", "-o", "out.sarif", "train.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.strip() == ""  # the SARIF went to the file, not the terminal
    log = json.loads((tmp_path / "out.sarif").read_text())
    jsonschema.validate(log, SARIF_SCHEMA)
    [result] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "GD301"]
    where = result["locations"][0]["physicalLocation"]
    assert where["artifactLocation"] == {"uri": "train.py"} and where["region"]["startLine"] == 12
    assert result["message"]["text"].startswith("[optimizer step 3] ")
    assert result["properties"] == {"step": 3}
    assert result["partialFingerprints"]["graddoctor/v1"]
