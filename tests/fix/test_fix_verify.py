"""Every code with an edit: a realistic broken program through the real `graddoctor fix --verify --write`.

The edit verifies (the finding is gone from the edited run, no new error or warning, the
script runs), the file on disk is edited as the diff said, the loss falls where the bug
stopped learning, and running `fix --write` again changes nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs"

# program, code, whether the bug stops or slows learning: then the edited run's loss must fall to under half
# its start and to under half of where the original run ended (when the original had a loss at all)
CASES = [
    ("gd101_item_loss.py", "GD101", True),
    ("gd102_detached_prediction.py", "GD102", True),
    ("gd103_masked_token_loss.py", "GD103", True),
    ("gd105_plain_list.py", "GD105", True),
    ("gd106_new_head.py", "GD106", False),
    ("gd107_gru_state.py", "GD107", False),
    ("gd108_gated_features.py", "GD108", True),
    ("gd109_manual_update.py", "GD109", True),
    ("gd110_no_grad_loss.py", "GD110", True),
    ("gd110_no_grad_train_step.py", "GD110", True),
    ("gd112_cached_embeddings.py", "GD112", True),
    ("gd113_frozen_embedding_checkpoint.py", "GD113", False),
    ("gd201_regression.py", "GD201", True),
    ("gd202_regression.py", "GD202", True),
    ("gd203_regression.py", "GD203", True),
    ("gd205_steplr_per_batch.py", "GD205", True),
    ("gd205_steplr_in_one_epoch_function.py", "GD205", False),
    ("gd206_regression.py", "GD206", False),
    ("gd206_clip_in_config_if.py", "GD206", False),
    ("gd207_running_total.py", "GD207", False),
    ("gd208_eval_then_train.py", "GD208", False),
    ("gd209_amp.py", "GD209", False),
    ("gd211_eval_in_train_mode.py", "GD211", False),
    ("gd501_softmax_model.py", "GD501", True),
    ("gd501_sequential_softmax.py", "GD501", False),
    ("gd502_repeated.py", "GD502", False),
    ("gd503_broadcast.py", "GD503", True),
    ("gd504_sorted.py", "GD504", False),
    ("gd505_sequential_relu_head.py", "GD505", True),
    ("gd506_lstm_batch_layout.py", "GD506", True),
]


def _added_lines(diff: str) -> list[str]:
    return [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]


@pytest.mark.parametrize("program,code,learns", CASES, ids=[c[0].removesuffix(".py") for c in CASES])
def test_edit_verifies_then_is_written_once(program, code, learns, graddoctor_cli):
    target = graddoctor_cli.path / "train.py"
    shutil.copy(PROGRAMS / program, target)
    original = target.read_text()

    ran = graddoctor_cli("fix", "--verify", "--write", "--json", "fix.json", "--html", "fix.html", "train.py", timeout=600)
    assert ran.returncode == 1, ran.stdout + ran.stderr  # judged on the original program, which has the bug
    report = json.loads((graddoctor_cli.path / "fix.json").read_text())
    finding = next(f for f in report["findings"] if f["code"] == code)
    fix = finding["fix"]
    assert fix["verified"] is True, ran.stdout + ran.stderr
    assert fix["new_findings"] == []
    assert f"{code} train.py:{finding['line']}  gone, nothing new  verified" in ran.stdout

    edited = target.read_text()
    assert edited != original
    for line in _added_lines(fix["diff"]):
        assert line in edited.splitlines()
    page = (graddoctor_cli.path / "fix.html").read_text()
    assert 'class="losschart"' in page and ">edited</text>" in page  # both runs' loss in one chart
    import html as html_mod

    shown = html_mod.unescape(page.split('class="fixedits"', 1)[1].split("</section>", 1)[0])
    assert f"{code} train.py:{finding['line']}  gone, nothing new  verified" in shown  # the verdict
    assert all(line in shown for line in _added_lines(fix["diff"]))  # and the diff
    if learns:
        first, last = fix["loss_after"]
        assert last < 0.5 * first, fix
        if fix["loss_before"] is not None:  # a crash or no step at all leaves the original without a loss series
            assert last < 0.5 * fix["loss_before"][1], fix

    again = graddoctor_cli("fix", "--write", "--json", "again.json", "train.py", timeout=300)
    assert target.read_text() == edited, again.stdout
    codes = {f["code"] for f in json.loads((graddoctor_cli.path / "again.json").read_text())["findings"]}
    assert code not in codes
