"""`explain` on the messages users really paste (tests/explain/real_messages.py).

Every entry must be recognised, filed under the code of its thread's cause, state
that cause, and never print a fix that would make that program worse. A live
program checks that the frames' evidence does not contradict the message's choice.
"""

from __future__ import annotations

import pytest

import graddoctor
from tests.explain.real_messages import DATALOADER_WORKER, MESSAGES, Pasted


def _label(entry: Pasted) -> str:
    return entry.text.strip().splitlines()[-1][:60]


@pytest.mark.parametrize("entry", MESSAGES, ids=_label)
def test_the_pasted_message_gets_its_threads_cause_and_no_harmful_fix(entry):
    found = graddoctor.explain(entry.text)
    assert found, "not recognised"
    finding = found[0]
    assert finding.code == entry.code
    said = (finding.message + " " + finding.hint).lower()
    for words in entry.cause:
        assert words.lower() in said, f"{words!r} missing from: {said}"
    for fix in entry.never:
        assert fix.lower() not in said, f"harmful fix {fix!r} in: {said}"


def test_the_corpus_is_large_and_varied():
    assert len(MESSAGES) >= 50
    assert len({m.code for m in MESSAGES}) >= 12
    assert len({m.text for m in MESSAGES}) == len(MESSAGES)


def test_a_pasted_dataloader_traceback_names_the_users_loop_line(graddoctor_cli):
    ran = graddoctor_cli("explain", stdin=DATALOADER_WORKER, json_report=False)
    assert ran.returncode == 0
    assert "GD601" in ran.stdout and "train.py:58" in ran.stdout
    assert "num_workers=0" in ran.stdout


def test_a_segmentation_mask_crash_under_run_is_not_told_to_shift_labels(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script="""
        import torch
        from torch import nn

        torch.manual_seed(0)
        model = nn.Conv2d(3, 4, kernel_size=3, padding=1)       # 4 classes per pixel
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        images = torch.rand(2, 3, 16, 16)
        masks = torch.randint(0, 4, (2, 16, 16))
        masks[:, 0, :] = 255                                    # boundary pixels, VOC style
        loss = nn.functional.cross_entropy(model(images), masks)
        loss.backward()
        optimizer.step()
    """)
    assert ran.returncode == 1
    finding = ran.finding("GD604")
    said = finding["message"] + " " + finding["hint"]
    assert "ignore_index=255" in said
    assert "y - 1" not in said and "256 outputs" not in said
