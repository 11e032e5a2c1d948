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
    ("gd207_meter_keeps_losses.py", "GD207", False),
    ("gd208_eval_then_train.py", "GD208", False),
    ("gd209_amp.py", "GD209", False),
    ("gd211_eval_in_train_mode.py", "GD211", False),
    ("gd501_softmax_model.py", "GD501", True),
    ("gd501_sequential_softmax.py", "GD501", False),
    ("gd502_repeated.py", "GD502", False),
    ("gd502_encoder_decoder_one_line.py", "GD502", False),
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
    shared = [f for f in report["findings"] if f.get("fix") and f["line"] == finding["line"]]
    if len(shared) == 1:  # with two edits on one line (two repeats), each diff shows its own alone
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


def test_warnings_the_nan_loss_hid_do_not_fail_the_edit_that_removes_it(graddoctor_cli):
    # The hand-written log of a softmax is NaN from the first step, so nobody could see that lr=3.0
    # makes the gradients explode: the edit is right, and the summary names what comes next.
    target = graddoctor_cli.path / "train.py"
    shutil.copy(PROGRAMS / "gd301_log_softmax_high_lr.py", target)
    ran = graddoctor_cli("fix", "--verify", "--json", "fix.json", "train.py", timeout=300)
    assert ran.returncode == 1, ran.stderr
    assert "GD301 train.py:23  its cause is gone  verified" in ran.stdout
    assert "show what the first run's NaN/Inf loss hid: GD303@train.py:25" in ran.stdout
    report = json.loads((graddoctor_cli.path / "fix.json").read_text())
    (edit,) = [f["fix"] for f in report["findings"] if f["code"] == "GD301"]
    assert edit["verified"] is True
    assert edit["new_findings"] == []
    assert "GD303@train.py:25" in edit["unmasked"]


def _finding(code: str, line: int, step: int, **evidence) -> "Finding":
    from graddoctor.finding import Finding, Severity

    severity = Severity.ERROR if code == "GD301" else Severity.WARNING
    return Finding(code, code.lower(), severity, "m", "h", file="train.py", line=line, step=step, evidence=evidence)


def _verdict(before, after):
    from graddoctor.editing.plan import Plan, PlannedFix
    from graddoctor.fix.verify import EditedRun, judge

    plan = Plan(fixes=[PlannedFix(before[0], "/x/train.py", "take log_softmax", "diff")])
    (verdict,) = judge(plan, before, EditedRun(findings=after, status="completed", steps=30))
    return verdict


def test_a_warning_after_a_late_or_diverged_nan_still_fails_the_edit():
    exploded = _finding("GD303", 25, 6)
    # the first run measured 20 finite steps before its NaN: the explosion is the edit's
    late = _verdict([_finding("GD301", 23, 21, diverged=False)], [exploded])
    assert not late.verified and late.new_findings == ["GD303@train.py:25"] and late.unmasked == []
    # the first run's NaN came from diverging updates, which it did measure: the same cause again
    diverged = _verdict([_finding("GD301", 23, 2, diverged=True)], [exploded, _finding("GD301", 23, 9, diverged=True)])
    assert not diverged.verified and diverged.unmasked == []
    # an op's NaN from step 1, gone after the edit: the explosion was hidden, and counts as such
    hidden = _verdict([_finding("GD301", 23, 1, diverged=False)], [exploded])
    assert hidden.verified and hidden.unmasked == ["GD303@train.py:25"] and hidden.new_findings == []
