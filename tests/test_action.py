"""The GitHub Action (action.yml): its own shell steps, run here as a runner would run them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = {step.get("id"): step for step in ACTION["runs"]["steps"]}
SARIF_SCHEMA = json.loads((ROOT / "tests/lint/sarif-2.1.0-rtm.5.schema.json").read_text())


def expand(text: str, inputs: dict[str, str]) -> str:
    """GitHub's `${{ inputs.x }}` and `${{ github.action_path }}`, as the runner substitutes them."""
    values = {**{f"inputs.{k}": str(v.get("default", "")) for k, v in ACTION["inputs"].items()},
              **{f"inputs.{k}": v for k, v in inputs.items()}, "github.action_path": str(ROOT)}
    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: values[m.group(1)], text)


def run_step(step_id: str, folder: Path, **inputs: str) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    step = STEPS[step_id]
    assert step["shell"] == "bash"
    output = folder / "github_output"
    output.write_text("")
    env = {k: expand(v, inputs) for k, v in step.get("env", {}).items()}
    # `graddoctor` on PATH, as the install step leaves it (here: this venv's, on the source tree).
    env = dict(os.environ, **env, GITHUB_OUTPUT=str(output), PYTHONPATH=str(ROOT / "src"), NO_COLOR="1",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(["bash", "-e", "-c", expand(step["run"], inputs)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return done, outputs


def test_the_lint_step_writes_a_valid_sarif_log_and_annotations(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src/train.py").write_text(
        "for x, y in loader:\n    optimizer.zero_grad()\n    loss = criterion(model(x), y)\n"
        "    loss.item().backward()\n    optimizer.step()\n")
    (tmp_path / "src/clean.py").write_text("import torch\n")
    done, outputs = run_step("lint", tmp_path, paths="src")
    assert done.returncode == 0, done.stderr  # the step succeeds: the last step fails the job, after the upload
    assert outputs == {"exit-code": "1"}
    log = json.loads((tmp_path / "graddoctor.sarif").read_text())
    jsonschema.validate(log, SARIF_SCHEMA)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["GD101"]
    assert done.stdout.startswith("::error file=src/train.py,line=4,")


def test_a_clean_tree_gives_exit_code_0_and_a_usage_error_fails_the_step(tmp_path):
    (tmp_path / "train.py").write_text("import torch\n")
    done, outputs = run_step("lint", tmp_path)
    assert done.returncode == 0 and outputs == {"exit-code": "0"}
    done, outputs = run_step("lint", tmp_path, paths="missing")
    assert done.returncode == 2 and outputs == {"exit-code": "2"}


def test_the_action_installs_no_torch_for_lint_and_uploads_with_codeql():
    assert ACTION["runs"]["using"] == "composite"
    install = STEPS["install"]
    # `pip install` of this repository, whose dependencies hold no torch (.ci/test-py310 proves it on a real install)
    assert "torch" not in install["run"] + json.dumps(install["env"]) and "GD_SOURCE" in install["run"]
    assert expand(install["env"]["GD_SOURCE"], {}) == str(ROOT)
    uploads = [s for s in ACTION["runs"]["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert [u["with"]["category"] for u in uploads] == ["graddoctor-lint", "graddoctor-run"]
    assert "torch" in STEPS["smoke"]["run"] and "--format sarif" in STEPS["smoke"]["run"]
    assert STEPS["smoke"]["if"] == "${{ inputs.smoke-script != '' }}"
