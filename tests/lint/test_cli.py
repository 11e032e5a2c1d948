"""`graddoctor lint` as users run it: formats, exit codes, suppression, selection, configuration, paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[2]
REPORT_SCHEMA = json.loads((ROOT / "src/graddoctor/report/schema.json").read_text())
# The official SARIF 2.1.0 (rtm.5) JSON schema, as shipped (MIT) in Microsoft's
# @microsoft/jest-sarif npm package (lib/schemas/sarif-2.1.0-rtm.5.json).
SARIF_SCHEMA = json.loads((Path(__file__).parent / "sarif-2.1.0-rtm.5.schema.json").read_text())

BROKEN = """\
import torch

for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.item().backward()
    optimizer.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
"""
CLEAN = """\
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_text_output_exact(lint_cli):
    write(lint_cli.path, "train.py", BROKEN)
    ran = lint_cli("train.py")
    assert ran.returncode == 1
    assert ran.stdout.splitlines() == [
        "train.py:6:5: GD101 `loss.item()` is a Python number, so `.backward()` on it fails: it has no autograd graph.",
        "  6 |     loss.item().backward()",
        "    |     ^",
        "  hint: Keep `loss` as a tensor for the loss and call `backward()` on it; use `.item()` only for logging.",
        "",
        "train.py:8:5: GD206 Gradients are clipped on line 8, after the optimizer step (line 7), so the step uses unclipped gradients.",
        "  8 |     torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)",
        "    |     ^",
        "  note: train.py:7: the step already used the unclipped gradients here",
        "  hint: Clip between `loss.backward()` and `optimizer.step()`.",
        "",
        "Found 2 problems (1 error, 1 warning) in 1 file.",
    ]


def test_clean_file_exits_zero(lint_cli):
    write(lint_cli.path, "train.py", CLEAN)
    ran = lint_cli("train.py")
    assert (ran.returncode, ran.stdout) == (0, "No problems found in 1 file.\n")


def test_json_report_matches_the_schema(lint_cli):
    write(lint_cli.path, "train.py", BROKEN)
    ran = lint_cli("--format", "json", "train.py")
    report = json.loads(ran.stdout)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report["command"] == "lint" and report["target"] == ["train.py"]
    assert not {"status", "exception", "steps_observed", "layers"} & set(report)
    first = report["findings"][0]
    assert (first["code"], first["file"], first["line"], first["column"]) == ("GD101", "train.py", 6, 5)
    assert first["severity"] == "error" and first["subjects"] == [] and first["step"] is None
    assert first["related"] == []  # the backward call is on the finding's own line
    clip = report["findings"][1]
    assert clip["related"] == [{"file": "train.py", "line": 7, "note": "the step already used the unclipped gradients here"}]


def test_sarif_validates(lint_cli):
    write(lint_cli.path, "src/train.py", BROKEN)
    write(lint_cli.path, "bad.py", "def f(:\n")
    ran = lint_cli("--format", "sarif", ".")
    log = json.loads(ran.stdout)
    jsonschema.validate(log, SARIF_SCHEMA)
    run = log["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == ["GD000", "GD101", "GD206"]
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    region = run["results"][1]["locations"][0]["physicalLocation"]
    assert region == {"artifactLocation": {"uri": "src/train.py"}, "region": {"startLine": 6, "startColumn": 5}}


def test_sarif_of_a_clean_run_validates(lint_cli):
    write(lint_cli.path, "train.py", CLEAN)
    log = json.loads(lint_cli("--format", "sarif", "train.py").stdout)
    jsonschema.validate(log, SARIF_SCHEMA)
    assert log["runs"][0]["results"] == []


def test_the_sarif_schema_really_rejects_a_broken_log(lint_cli):
    write(lint_cli.path, "train.py", BROKEN)
    log = json.loads(lint_cli("--format", "sarif", "train.py").stdout)
    log["runs"][0]["results"][0]["level"] = "fatal"  # not a SARIF level
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, SARIF_SCHEMA)


def test_github_annotations(lint_cli):
    write(lint_cli.path, "train.py", BROKEN)
    lines = lint_cli("--format", "github", "train.py").stdout.splitlines()
    assert lines[0].startswith("::error file=train.py,line=6,col=5,title=GD101 loss-is-python-number::GD101 `loss.item()`")
    assert lines[1].startswith("::warning file=train.py,line=8,col=5,title=GD206 clip-outside-backward-step::")


def test_fail_on(lint_cli):
    write(lint_cli.path, "train.py", BROKEN.replace("loss.item().backward()", "loss.backward()"))
    assert lint_cli("train.py").returncode == 1  # the GD206 warning
    assert lint_cli("--fail-on", "error", "train.py").returncode == 0
    assert lint_cli("--fail-on", "never", "train.py").returncode == 0


@pytest.mark.parametrize(
    "comment,silenced",
    [("# noqa: GD101", True), ("# noqa", True), ("# NOQA:GD1", True), ("# noqa: GD206, GD101", True), ("# noqa: GD999", False)],
)
def test_noqa(lint_cli, comment, silenced):
    write(lint_cli.path, "train.py", BROKEN.replace("loss.item().backward()", f"loss.item().backward()  {comment}"))
    codes = {f["code"] for f in json.loads(lint_cli("--format", "json", "train.py").stdout)["findings"]}
    assert ("GD101" not in codes) == silenced
    assert "GD206" in codes


def test_select_and_ignore_by_prefix(lint_cli):
    write(lint_cli.path, "train.py", BROKEN)

    def codes(*args):
        return [f["code"] for f in json.loads(lint_cli("--format", "json", *args, "train.py").stdout)["findings"]]

    assert codes("--select", "GD2") == ["GD206"]
    assert codes("--ignore", "GD1") == ["GD206"]
    assert codes("--select", "GD2", "--ignore", "GD206") == []
    assert codes("--select", "GD1", "--ignore", "GD2", "--select", "GD206") == ["GD101", "GD206"]  # longest prefix wins


def test_pyproject_configuration_found_walking_up(lint_cli):
    write(lint_cli.path, "pyproject.toml", '[tool.graddoctor]\nignore = ["GD101"]\nexclude = ["legacy"]\nfail-on = "error"\n')
    write(lint_cli.path, "pkg/sub/train.py", BROKEN)
    write(lint_cli.path, "pkg/legacy/old.py", BROKEN)
    ran = lint_cli("--format", "json", "pkg/sub")
    found = [(f["file"], f["code"]) for f in json.loads(ran.stdout)["findings"]]
    assert found == [("pkg/sub/train.py", "GD206")]
    assert ran.returncode == 0  # fail-on = "error" and only a warning is left
    assert lint_cli("--isolated", "--format", "json", "pkg").returncode == 1


def test_bad_pyproject_is_a_usage_error(lint_cli):
    write(lint_cli.path, "pyproject.toml", '[tool.graddoctor]\nfail-on = "sometimes"\n')
    write(lint_cli.path, "train.py", CLEAN)
    ran = lint_cli("train.py")
    assert ran.returncode == 2 and "fail-on" in ran.stderr



def test_a_misspelt_config_key_is_a_usage_error_not_ignored(lint_cli):
    write(lint_cli.path, "pyproject.toml", '[tool.graddoctor]\nignores = ["GD101"]\n')
    write(lint_cli.path, "train.py", CLEAN)
    ran = lint_cli("train.py")
    assert ran.returncode == 2 and "'ignores' (did you mean 'ignore'?)" in ran.stderr, ran.stderr
    # near miss: the documented keys, also in the [tool.graddoctor.lint] sub-table, are accepted
    write(lint_cli.path, "pyproject.toml", '[tool.graddoctor]\nfail_on = "error"\n[tool.graddoctor.lint]\nextend-ignore = ["GD101"]\n')
    assert lint_cli("train.py").returncode == 0

def test_gitignore_and_exclude_when_recursing(lint_cli):
    root = lint_cli.path
    (root / ".git").mkdir()
    write(root, ".gitignore", "generated/\n*_tmp.py\n!keep_tmp.py\n/top_only.py\n")
    for name in ["a.py", "generated/g.py", "x_tmp.py", "keep_tmp.py", "top_only.py", "sub/top_only.py",
                 "sub/b.py", "vendor/v.py", ".venv/lib/site.py", "notes.txt"]:
        write(root, name, BROKEN)
    ran = lint_cli("--format", "json", "--select", "GD101", "--exclude", "vendor", ".")
    files = sorted({f["file"] for f in json.loads(ran.stdout)["findings"]})
    assert files == ["a.py", "keep_tmp.py", "sub/b.py", "sub/top_only.py"]
    ran = lint_cli("--format", "json", "--select", "GD101", "--no-gitignore", ".")
    files = sorted({f["file"] for f in json.loads(ran.stdout)["findings"]})
    assert "generated/g.py" in files and ".venv/lib/site.py" not in files


def test_missing_path_is_exit_2_with_one_line(lint_cli):
    ran = lint_cli("nowhere.py")
    assert ran.returncode == 2
    assert ran.stderr == "graddoctor lint: error: nowhere.py: no such file or directory\n"
    assert lint_cli().returncode == 2


def test_bad_files_are_gd000_never_a_crash(lint_cli):
    root = lint_cli.path
    write(root, "syntax.py", "def f(:\n    pass\n")
    write(root, "py2.py", "print 'hello'\n")
    (root / "latin1.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    (root / "latin1_declared.py").write_bytes("# -*- coding: latin-1 -*-\nx = 'caf\xe9'\n".encode("latin-1"))
    (root / "binary.py").write_bytes(b"\x7fELF\x00\x01\x02\x00\x00")
    (root / "nested.py").write_text("x = " + "(" * 300 + ")" * 300 + "\n")
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    os.symlink("missing_target.py", root / "dangling.py")
    (root / "dir").mkdir()
    os.symlink("..", root / "dir" / "up")  # a folder symlink loop: not followed
    ran = lint_cli("--format", "json", ".")
    assert ran.returncode == 1, ran.stderr
    found = {f["file"]: f for f in json.loads(ran.stdout)["findings"]}
    assert set(found) == {"syntax.py", "py2.py", "latin1.py", "binary.py", "nested.py", "loop_a.py", "loop_b.py", "dangling.py"}
    assert all(f["code"] == "GD000" for f in found.values())
    assert found["syntax.py"]["line"] == 1
    assert "Python 2" in found["py2.py"]["message"]
    assert "not valid utf-8" in found["latin1.py"]["message"]
    assert "binary" in found["binary.py"]["message"]


def test_too_large_file_is_gd000(lint_cli, monkeypatch):
    from graddoctor.lint import engine

    monkeypatch.setattr(engine, "MAX_BYTES", 1000)
    write(lint_cli.path, "huge.py", "x = 1\n" * 500)
    ran = lint_cli("--format", "json", "huge.py")
    [finding] = json.loads(ran.stdout)["findings"]
    assert finding["code"] == "GD000" and "MiB limit" in finding["message"]


def test_large_file_is_linted(lint_cli):
    body = "".join(f"\nfor x{i}, y in loader:\n    optimizer.zero_grad()\n    loss = criterion(model(x{i}), y)\n"
                   f"    loss.backward()\n    optimizer.step()\n" for i in range(5000))
    write(lint_cli.path, "big.py", body + "\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    loss.item().backward()\n")
    ran = lint_cli("--format", "json", "big.py")
    assert [f["code"] for f in json.loads(ran.stdout)["findings"]] == ["GD101"]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads every file")
def test_unreadable_paths(lint_cli):
    path = write(lint_cli.path, "secret/train.py", CLEAN)
    path.chmod(0)
    try:
        assert lint_cli("secret/train.py").returncode == 2
        ran = lint_cli("--format", "json", "secret")
        assert [f["code"] for f in json.loads(ran.stdout)["findings"]] == ["GD000"]
    finally:
        path.chmod(0o644)


def test_fifo_is_gd000_not_a_hang(lint_cli):
    os.mkfifo(lint_cli.path / "pipe.py")
    ran = lint_cli("--format", "json", ".")
    [finding] = json.loads(ran.stdout)["findings"]
    assert finding["code"] == "GD000" and "not a regular file" in finding["message"]


def test_many_files_in_parallel_give_the_same_result(lint_cli):
    for i in range(40):
        write(lint_cli.path, f"m{i:02d}.py", BROKEN if i % 3 == 0 else CLEAN)
    serial = lint_cli("--format", "json", "--jobs", "1", ".").stdout
    parallel = lint_cli("--format", "json", "--jobs", "2", ".").stdout
    assert serial == parallel
    assert len(json.loads(serial)["findings"]) == 14 * 2


def test_black_box_command(tmp_path):
    """The real `python -m graddoctor lint` (console entry), end to end."""
    write(tmp_path, "train.py", BROKEN)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "graddoctor", "lint", "--format", "github", "train.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("::error file=train.py,line=6,col=5,")


def test_pre_commit_hook_definition():
    yaml = pytest.importorskip("yaml")
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "graddoctor-lint" and hook["entry"] == "graddoctor lint"
    assert hook["types"] == ["python"] and hook["language"] == "python"
    assert "additional_dependencies" not in hook  # the package alone, whose dependencies hold no torch


def test_help_lists_the_options(lint_cli):
    ran = lint_cli("--help")
    assert ran.returncode == 0
    for option in ("--format", "--select", "--ignore", "--fix", "--diff", "--fail-on", "--exclude"):
        assert option in ran.stdout


def test_internal_error_is_exit_3_and_says_so(lint_cli, monkeypatch):
    """A bug in a check is graddoctor's failure: exit 3 with a request to report it, never a silent pass."""
    from graddoctor.lint import engine

    def broken_check(analysis, reporter):
        raise KeyError("boom")

    monkeypatch.setattr(engine, "checks_for", lambda select=None: [broken_check])
    write(lint_cli.path, "train.py", CLEAN)
    ran = lint_cli("--jobs", "1", "train.py")
    assert ran.returncode == 3
    assert "internal error" in ran.stderr and "Please report" in ran.stderr


def test_unknown_code_is_a_usage_error(lint_cli):
    write(lint_cli.path, "train.py", CLEAN)
    ran = lint_cli("--select", "E501", "train.py")
    assert ran.returncode == 2 and "'E501' is not a code" in ran.stderr


def test_output_file(lint_cli):
    write(lint_cli.path, "train.py", BROKEN)
    ran = lint_cli("--format", "sarif", "--output", "out.sarif", "train.py")
    assert ran.returncode == 1 and ran.stdout == ""
    jsonschema.validate(json.loads((lint_cli.path / "out.sarif").read_text()), SARIF_SCHEMA)
