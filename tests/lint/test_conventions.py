"""Linter conventions: noqa by code or rule name, file-level noqa, per-file-ignores, --add-noqa,
--baseline, and GD001 for a noqa comment that silences nothing."""

from __future__ import annotations

import json
import textwrap

import pytest

from graddoctor.rules import get_rule

# A real training loop with three bugs: .item().backward() (GD101), a loss kept with its graph (GD207),
# clipping after the step (GD206).
LOOP = """\
import torch

losses = []
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)  # the batch loss
    loss.item().backward()
    optimizer.step()
    losses.append(loss)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
"""


def write(root, name: str, text: str):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def codes(lint_cli, *args: str) -> list[str]:
    ran = lint_cli("--format", "json", *args)
    assert ran.returncode in (0, 1), ran.stderr
    return [f["code"] for f in json.loads(ran.stdout)["findings"]]


@pytest.mark.parametrize("comment", ["# noqa: graph-kept-alive", "# NOQA: Graph-Kept-Alive", "# noqa: GD207", "# noqa:GD2"])
def test_noqa_by_code_or_by_rule_name(lint_cli, comment):
    assert get_rule("GD207").name == "graph-kept-alive"
    write(lint_cli.path, "train.py", LOOP.replace("losses.append(loss)", f"losses.append(loss)  {comment}"))
    found = codes(lint_cli, "train.py")
    assert "GD207" not in found
    assert "GD101" in found and "GD206" in found


def test_a_name_of_another_rule_does_not_silence(lint_cli):
    write(lint_cli.path, "train.py", LOOP.replace("losses.append(loss)", "losses.append(loss)  # noqa: loss-is-python-number"))
    found = codes(lint_cli, "train.py")
    assert "GD207" in found
    assert "GD001" in found  # and that name silenced nothing on its line


def test_noqa_inside_a_string_silences_nothing(lint_cli):
    write(lint_cli.path, "train.py", LOOP.replace("losses.append(loss)", 'losses.append(loss); note = "# noqa: GD207"'))
    assert "GD207" in codes(lint_cli, "train.py")


def test_file_level_noqa(lint_cli):
    write(lint_cli.path, "some.py", "# graddoctor: noqa: GD2, loss-is-python-number\n" + LOOP)
    write(lint_cli.path, "every.py", "# graddoctor: noqa\n" + LOOP)
    assert codes(lint_cli, "some.py") == []
    assert codes(lint_cli, "every.py") == []
    write(lint_cli.path, "near.py", "x = 1  # graddoctor: noqa\n" + LOOP)  # not on a line of its own
    assert sorted(codes(lint_cli, "near.py")) == ["GD101", "GD206", "GD207"]


def test_per_file_ignores(lint_cli):
    write(lint_cli.path, "pyproject.toml", """\
        [tool.graddoctor]
        per-file-ignores = {"tests/*" = ["GD1", "graph-kept-alive"], "legacy.py" = ["ALL"]}
        """)
    write(lint_cli.path, "tests/test_train.py", LOOP)
    write(lint_cli.path, "old/legacy.py", LOOP)
    write(lint_cli.path, "train.py", LOOP)
    ran = lint_cli("--format", "json", ".")
    found = sorted((f["file"], f["code"]) for f in json.loads(ran.stdout)["findings"])
    assert found == [("tests/test_train.py", "GD206"), ("train.py", "GD101"), ("train.py", "GD206"), ("train.py", "GD207")]


def test_per_file_ignores_must_be_a_table(lint_cli):
    write(lint_cli.path, "pyproject.toml", '[tool.graddoctor]\nper-file-ignores = ["tests/*"]\n')
    write(lint_cli.path, "train.py", LOOP)
    ran = lint_cli("train.py")
    assert ran.returncode == 2 and "per-file-ignores must be a table" in ran.stderr


def test_add_noqa_silences_every_finding_and_keeps_comments(lint_cli):
    path = write(lint_cli.path, "train.py", LOOP.replace("optimizer.step()", "optimizer.step()  # noqa: E501"))
    ran = lint_cli("--add-noqa", "train.py")
    assert ran.returncode == 0 and "Added 3 noqa comments." in ran.stderr
    text = path.read_text()
    assert "    loss.item().backward()  # noqa: GD101\n" in text
    assert "    loss = criterion(model(x), y)  # the batch loss\n" in text  # no finding: untouched
    assert "    losses.append(loss)  # noqa: GD207\n" in text
    assert codes(lint_cli, "train.py") == []
    assert lint_cli("--add-noqa", "train.py").stderr.strip().endswith("Added 0 noqa comments.")


def test_add_noqa_extends_an_existing_list_and_keeps_another_comment(lint_cli):
    text = LOOP.replace("loss.item().backward()", "loss.item().backward()  # noqa: E712 (legacy)")
    text = text.replace("losses.append(loss)", "losses.append(loss)  # for the plot")
    path = write(lint_cli.path, "train.py", text)
    lint_cli("--add-noqa", "train.py")
    after = path.read_text()
    assert "loss.item().backward()  # noqa: E712, GD101 (legacy)\n" in after
    assert "losses.append(loss)  # for the plot  # noqa: GD207\n" in after
    assert codes(lint_cli, "train.py") == []


def test_add_noqa_leaves_a_line_that_cannot_take_a_comment(lint_cli):
    source = 'import torch\nlosses = []\nfor x, y in loader:\n    optimizer.zero_grad()\n    loss = criterion(model(x), y)\n' \
             '    losses.append(loss); doc = """\n    text"""\n    loss.backward()\n    optimizer.step()\n'
    path = write(lint_cli.path, "train.py", source)
    assert "GD207" in codes(lint_cli, "train.py")
    ran = lint_cli("--add-noqa", "train.py")
    assert "train.py:6: no room for a comment" in ran.stderr
    assert path.read_text() == source


def test_baseline_round_trip(lint_cli):
    path = write(lint_cli.path, "train.py", LOOP)
    first = lint_cli("--baseline", "graddoctor-baseline.json", "train.py")
    assert first.returncode == 0 and "recorded 3 findings" in first.stderr
    recorded = json.loads((lint_cli.path / "graddoctor-baseline.json").read_text())
    assert recorded["schema"] == "graddoctor.baseline/1"
    assert sorted(e["code"] for e in recorded["findings"]) == ["GD101", "GD206", "GD207"]
    # Lines added above every finding: nothing is new.
    path.write_text("import os\nimport sys\n\n" + LOOP)
    again = lint_cli("--format", "json", "--baseline", "graddoctor-baseline.json", "train.py")
    assert again.returncode == 0 and json.loads(again.stdout)["findings"] == []
    # A second `losses.append(loss)` is a new finding, although its line text matches a recorded one.
    path.write_text("import os\nimport sys\n\n" + LOOP + "    losses.append(loss)\n")
    new = lint_cli("--format", "json", "--baseline", "graddoctor-baseline.json", "train.py")
    assert new.returncode == 1
    assert [(f["code"], f["line"]) for f in json.loads(new.stdout)["findings"]] == [("GD207", 14)]


def test_baseline_from_another_folder_matches(lint_cli, monkeypatch):
    write(lint_cli.path, "proj/train.py", LOOP)
    assert lint_cli("--baseline", "proj/base.json", "proj/train.py").returncode == 0
    monkeypatch.chdir(lint_cli.path / "proj")
    assert codes(lint_cli, "--baseline", "base.json", "train.py") == []


def test_a_broken_baseline_is_a_usage_error(lint_cli):
    write(lint_cli.path, "train.py", LOOP)
    (lint_cli.path / "base.json").write_text("{not json")
    ran = lint_cli("--baseline", "base.json", "train.py")
    assert ran.returncode == 2 and "cannot read the baseline base.json" in ran.stderr


def test_unused_noqa_is_gd001_info(lint_cli):
    fixed = LOOP.replace("loss.item().backward()", "loss.backward()  # noqa: GD101, E501")
    write(lint_cli.path, "train.py", fixed)
    ran = lint_cli("--format", "json", "train.py")
    [gd001] = [f for f in json.loads(ran.stdout)["findings"] if f["code"] == "GD001"]
    assert gd001["severity"] == "info" and gd001["name"] == "unused-noqa"
    assert (gd001["line"], gd001["column"]) == (7, 30)  # at "GD101" itself
    assert gd001["evidence"] == {"noqa": "GD101"}
    assert "E501" not in gd001["message"]  # another tool's code is not ours to judge
    # info never fails the lint on its own
    write(lint_cli.path, "only.py", "x = 1  # noqa: GD207\n")
    assert lint_cli("only.py").returncode == 0
    assert lint_cli("--fail-on", "info", "only.py").returncode == 1


@pytest.mark.parametrize("comment", ["# noqa", "# noqa: E501", "# noqa: GD207", "# noqa: GD999"])
def test_used_bare_foreign_or_unknown_noqa_is_not_reported(lint_cli, comment):
    write(lint_cli.path, "train.py", LOOP.replace("losses.append(loss)", f"losses.append(loss)  {comment}"))
    assert "GD001" not in codes(lint_cli, "train.py")


def test_a_code_that_did_not_run_is_not_called_unused(lint_cli):
    write(lint_cli.path, "train.py", "x = 1  # noqa: GD101\n")
    assert codes(lint_cli, "--select", "GD2", "train.py") == []
    assert codes(lint_cli, "--ignore", "GD101", "train.py") == []
    assert codes(lint_cli, "--ignore", "GD001", "train.py") == []
    assert codes(lint_cli, "train.py") == ["GD001"]


def test_per_file_ignores_and_name_noqa_apply_to_what_run_reads_in_the_code(tmp_path, monkeypatch):
    """`graddoctor run` adds lint's findings on the files it ran: the same configuration silences them."""
    from graddoctor.runner.static import static_findings

    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pyproject.toml", '[tool.graddoctor]\nper-file-ignores = {"scripts/*" = ["clip-outside-backward-step"]}\n')
    ignored = write(tmp_path, "scripts/train.py", LOOP)
    kept = write(tmp_path, "train.py", LOOP.replace("losses.append(loss)", "losses.append(loss)  # noqa: graph-kept-alive"))
    assert sorted(f.code for f in static_findings([str(ignored)])) == ["GD101", "GD207"]
    assert sorted(f.code for f in static_findings([str(kept)])) == ["GD101", "GD206"]
