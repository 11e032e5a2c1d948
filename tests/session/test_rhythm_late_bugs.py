"""The loop audit (GD201-GD209) and GD212 sleep through repeated iterations (session/rhythm.py,
loop/stretch.py): a bug of the loop's order that starts late in a long run is found at the same step,
with the same message, as with the fingerprint off; a loop that clears its gradients by hand keeps the
audit awake; and the training is untouched (bit-identical parameters)."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, IterableDataset, TensorDataset

import graddoctor

STEPS = 420
LATE = 300
EARLIER = 150  # accumulation is reported when at least half the steps accumulate


def _mlp(seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 1))


def _batch(step: int):
    g = torch.Generator().manual_seed(step)
    return torch.randn(16, 8, generator=g), torch.randn(16, 1, generator=g)


class _Stream(IterableDataset):
    """Batches without a length: a pass over it has no known number of batches."""

    def __iter__(self):
        for step in range(1, STEPS + 1):
            yield _batch(step)


def _program(bug: str):
    """A training loop of STEPS steps where `bug` starts at step LATE (or is there throughout)."""

    def run(fingerprint: bool):
        model = _mlp()
        opt = (torch.optim.SGD if "accumulat" in bug or "sgd" in bug else torch.optim.Adam)(
            model.parameters(), lr=1e-3)
        sched = None
        if "scheduler" in bug:
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=200 if "period" in bug else 100, gamma=0.5)
        w = graddoctor.watch(model, opt)
        w.session.rhythm.enabled = fingerprint
        asleep = set()
        if "loader" in bug:
            data = DataLoader(_Stream(), batch_size=None)
        elif "sized pass" in bug:
            xs, ys = zip(*[_batch(step) for step in range(1, STEPS + 1)])
            data = DataLoader(TensorDataset(torch.cat(xs), torch.cat(ys)), batch_size=16)
        else:
            data = (_batch(step) for step in range(1, STEPS + 1))
        with w:
            for step, (x, y) in enumerate(data, 1):
                late = step >= (EARLIER if "accumulat" in bug else LATE)
                by_hand = bug == "cleared by hand throughout" or (bug == "zero_grad replaced by clearing by hand" and late)
                if by_hand:
                    for p in model.parameters():
                        p.grad = None
                elif bug == "cleared by hand, then not" and not late:
                    for p in model.parameters():
                        p.grad = None
                elif not (bug == "zero_grad moved after backward" and late) and bug != "cleared by hand, then not":
                    opt.zero_grad()
                if "accumulat" in bug and (bug == "accumulation throughout" or late):
                    for half in (x[:8], x[8:]):  # two micro-batches, each loss a mean, never divided
                        F.mse_loss(model(half), y[:8]).backward()
                else:
                    F.mse_loss(model(x), y).backward()
                if bug == "zero_grad moved after backward" and late:
                    opt.zero_grad()
                clip_after = bug == "clip moved after step" and late
                if "clip" in bug and not clip_after:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                if clip_after:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                if sched is not None and (late or "throughout" in bug or "period" in bug):
                    sched.step()
                if step == STEPS - 1:
                    rhythm = w.session.rhythm
                    asleep = {type(e[0]).__name__ for e in rhythm._asleep.values() if not e[3]} if rhythm.steady else set()
            skipped = w.session.rhythm.skipped
        found = sorted((f.code, f.step, f.line, f.severity.name, f.message) for f in w.report().findings)
        assert not w.session.internal_errors, w.session.internal_errors
        return found, [p.detach().clone() for p in model.parameters()], skipped, asleep

    return run


def _both(bug: str):
    run = _program(bug)
    (found_on, params_on, skipped, asleep), (found_off, params_off, none, _) = run(True), run(False)
    assert skipped > 0 and none == 0
    assert found_on == found_off
    # the training itself is untouched: bit-identical parameters either way
    assert all(torch.equal(a.view(torch.int32), b.view(torch.int32)) for a, b in zip(params_on, params_off))
    return found_on, asleep


@pytest.mark.parametrize("bug, code, step", [
    ("zero_grad moved after backward", "GD202", LATE),
    ("clip moved after step", "GD206", None),
    ("scheduler per batch in a sized pass from late", "GD205", None),
    ("scheduler period within a loader pass", "GD205", None),
    ("cleared by hand, then not", "GD201", LATE),
    ("accumulation from late", "GD212", None),
    ("accumulation throughout", "GD212", None),
])
def test_a_late_bug_of_the_loop_is_found_the_same(bug, code, step):
    found, _ = _both(bug)
    mine = [f for f in found if f[0] == code]
    assert mine, found
    if step is not None:
        assert [f[1] for f in mine] == [step]


def test_the_scheduler_is_judged_at_its_period_within_the_pass():
    found, _ = _both("scheduler period within a loader pass")
    message = next(f[4] for f in found if f[0] == "GD205")
    assert "stepped 200 times within one pass" in message


def test_accumulation_counts_every_step_it_slept_through():
    found, _ = _both("accumulation from late")
    message = next(f[4] for f in found if f[0] == "GD212")
    assert f"({STEPS - EARLIER + 1} of {STEPS} steps)" in message


@pytest.mark.parametrize("bug", [
    "zero_grad replaced by clearing by hand",  # no zero_grad from step 300, cleared all the same
    "cleared by hand throughout",
    "clip sgd",
])
def test_a_loop_that_clears_its_gradients_is_not_flagged(bug):
    found, _ = _both(bug)
    assert not [f for f in found if f[0] in ("GD201", "GD202", "GD206")], found


def test_the_loop_audit_and_accumulation_sleep_in_a_plain_loop():
    _, asleep = _both("plain sgd")
    assert {"LoopAudit", "AccumulationWithoutScaling"} <= asleep, asleep


def test_a_loop_that_clears_by_hand_keeps_the_audit_awake():
    _, asleep = _both("cleared by hand throughout")
    assert "LoopAudit" not in asleep and "AccumulationWithoutScaling" in asleep, asleep
