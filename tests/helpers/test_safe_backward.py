"""safe_backward against a hand-written correct loop, on real training with several param groups."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from graddoctor import safe_backward
from graddoctor.errors import LossIsNumberError

from helper_models import all_params, make_model, same_params, two_groups


def _forward(model, x, y, autocast=False):
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        return F.mse_loss(model(x).float(), y)


@pytest.mark.parametrize("kind", ["sgd", "adamw"])
def test_accumulation_and_clipping_match_a_hand_written_loop_exactly(data, kind):
    k, clip = 3, 0.5
    ours, ref = make_model(), make_model()
    opt, ref_opt = two_groups(ours, kind), two_groups(ref, kind)
    norms, ref_norms = [], []

    torch.manual_seed(5)
    for x, y in data[:6]:
        result = safe_backward(_forward(ours, x, y), opt, clip_norm=clip, accumulate=k)
        if result.stepped:
            norms.append(result.grad_norm)
    torch.manual_seed(5)
    for i, (x, y) in enumerate(data[:6]):
        (_forward(ref, x, y) / k).backward()
        if (i + 1) % k == 0:
            ref_norms.append(float(torch.nn.utils.clip_grad_norm_(all_params(ref_opt), clip)))
            ref_opt.step()
            ref_opt.zero_grad()

    assert same_params(ours, ref)
    assert norms == ref_norms and len(norms) == 2
    assert result.steps == 2 and result.pending == 0 and not result.skipped


def test_steps_only_every_k_calls(data):
    model = make_model()
    opt = two_groups(model)
    stepped = [safe_backward(_forward(model, x, y), opt, accumulate=3).stepped for x, y in data]
    assert stepped == [False, False, True, False, False, True, False]
    assert all(p.grad is not None for p in model.parameters())  # the 7th batch waits for its group


def test_amp_with_grad_scaler_matches_a_hand_written_loop_exactly(data):
    k, clip = 2, 1.0
    ours, ref = make_model(), make_model()
    opt, ref_opt = two_groups(ours, "adamw"), two_groups(ref, "adamw")
    scaler, ref_scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10), torch.amp.GradScaler("cpu", init_scale=2.0**10)

    torch.manual_seed(5)
    for x, y in data[:6]:
        safe_backward(_forward(ours, x, y, autocast=True), opt, scaler=scaler, clip_norm=clip, accumulate=k)
    torch.manual_seed(5)
    for i, (x, y) in enumerate(data[:6]):
        ref_scaler.scale(_forward(ref, x, y, autocast=True) / k).backward()
        if (i + 1) % k == 0:
            ref_scaler.unscale_(ref_opt)
            torch.nn.utils.clip_grad_norm_(all_params(ref_opt), clip)
            ref_scaler.step(ref_opt)
            ref_scaler.update()
            ref_opt.zero_grad()

    assert same_params(ours, ref)
    assert scaler.get_scale() == ref_scaler.get_scale()


def test_non_finite_loss_is_skipped_before_backward_and_counted(data):
    model = make_model()
    opt = two_groups(model)
    before = [p.detach().clone() for p in model.parameters()]
    x, y = data[0]
    result = safe_backward(_forward(model, x, y) * float("nan"), opt)
    assert (result.stepped, result.skipped, result.reason) == (False, True, "loss is not finite")
    assert result.skipped_batches == 1 and result.steps == 0
    assert all(p.grad is None for p in model.parameters())
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))


def test_non_finite_gradient_in_the_second_param_group_clears_every_group(data):
    """The articles' version cleared only param_groups[0]; the head's NaN gradients then poisoned the next step."""
    model, ref = make_model(), make_model()
    opt, ref_opt = two_groups(model), two_groups(ref)
    x, y = data[0]
    torch.manual_seed(9)
    # sqrt at 0 has an infinite derivative: the loss is finite, the head's gradient is NaN.
    poison = torch.sqrt(model.head.weight * 0).sum()
    result = safe_backward(_forward(model, x, y) + poison, opt)
    assert (result.stepped, result.skipped, result.reason) == (False, True, "gradients are not finite")
    assert math.isnan(result.grad_norm)
    assert result.skipped_steps == 1 and result.skipped_batches == 1
    assert all(p.grad is None for p in all_params(opt))
    assert same_params(model, ref)

    # Training continues exactly like a run that never saw the bad batch.
    for x, y in data[1:4]:
        safe_backward(_forward(model, x, y), opt)
    torch.manual_seed(9)
    _forward(ref, *data[0])  # the same dropout draws as the skipped batch
    for x, y in data[1:4]:
        _forward(ref, x, y).backward()
        ref_opt.step()
        ref_opt.zero_grad()
    assert same_params(model, ref)
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_grad_scaler_overflow_is_skipped_by_the_scaler_and_the_scale_backs_off(data):
    model = make_model()
    opt = two_groups(model)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**127)
    before = [p.detach().clone() for p in model.parameters()]
    x, y = data[0]
    result = safe_backward(_forward(model, x, y, autocast=True) * 100, opt, scaler=scaler)
    assert result.skipped and not result.stepped
    assert scaler.get_scale() == 2.0**126
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))
    assert all(p.grad is None for p in model.parameters())


def test_a_nan_batch_inside_an_accumulation_group_keeps_the_others(data):
    model, ref = make_model(), make_model()
    opt, ref_opt = two_groups(model), two_groups(ref)
    torch.manual_seed(3)
    (x0, y0), (x1, y1), (x2, y2) = data[:3]
    assert not safe_backward(_forward(model, x0, y0), opt, accumulate=2).stepped
    assert safe_backward(_forward(model, x1, y1) * float("inf"), opt, accumulate=2).skipped
    assert safe_backward(_forward(model, x2, y2), opt, accumulate=2).stepped
    torch.manual_seed(3)
    (_forward(ref, x0, y0) / 2).backward()
    _forward(ref, x1, y1)  # the skipped batch still ran its forward pass (same dropout draws)
    (_forward(ref, x2, y2) / 2).backward()
    ref_opt.step()
    assert same_params(model, ref)


def test_bad_arguments_and_bad_losses_raise_clearly(data):
    model = make_model()
    opt = two_groups(model)
    x, y = data[0]
    with pytest.raises(ValueError, match="at least 1"):
        safe_backward(_forward(model, x, y), opt, accumulate=0)
    with pytest.raises(ValueError, match="positive norm"):
        safe_backward(_forward(model, x, y), opt, clip_norm=0)
    with pytest.raises(LossIsNumberError):
        safe_backward(_forward(model, x, y).item(), opt)


def test_graddoctor_finds_safe_backward_clean_and_leaves_results_unchanged(data):
    from graddoctor import Severity
    from graddoctor.session.session import Session
    from graddoctor.assembly import standard_observers

    def train(model, opt, scaler):
        torch.manual_seed(4)
        for _ in range(2):
            for x, y in data[:6]:
                safe_backward(_forward(model, x, y, autocast=True), opt, scaler=scaler, clip_norm=1.0, accumulate=2)

    watched, plain = make_model(), make_model()
    opt, plain_opt = two_groups(watched, "adamw"), two_groups(plain, "adamw")
    with Session(standard_observers(mode="watch"), models=watched, optimizers=opt) as session:
        train(watched, opt, torch.amp.GradScaler("cpu"))
    train(plain, plain_opt, torch.amp.GradScaler("cpu"))
    serious = [f for f in session.findings() if f.severity >= Severity.WARNING]
    assert serious == [], [f"{f.code} {f.message}" for f in serious]
    assert session.steps_taken == 6
    assert same_params(watched, plain)
