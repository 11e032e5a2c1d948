"""train_one_epoch against hand-written correct loops, and under graddoctor's own checks."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from graddoctor import Severity, train_one_epoch
from graddoctor.session.session import Session
from graddoctor.assembly import standard_observers

from helper_models import all_params, make_model, same_params, two_groups


def _mse(out, y):
    return F.mse_loss(out.float(), y)


def _hand_loop(model, data, opt, *, k=1, clip=None, scaler=None, autocast=False, scheduler=None, per_step=False):
    """The textbook loop, written out: loss/group size, unscale, clip, step, update, zero_grad."""
    model.train()
    losses = []
    n = len(data)
    opt.zero_grad()
    for i, (x, y) in enumerate(data):
        group = min(k, n - (i // k) * k)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = _mse(model(x), y)
        losses.append(loss.item())
        scaled = loss / group if group > 1 else loss
        (scaler.scale(scaled) if scaler else scaled).backward()
        if (i + 1) % k == 0 or i == n - 1:
            if scaler:
                scaler.unscale_(opt)
            if clip is not None:
                torch.nn.utils.clip_grad_norm_(all_params(opt), clip)
            if scaler:
                scaler.step(opt)
                scaler.update()
            else:
                opt.step()
            opt.zero_grad()
            if scheduler is not None and per_step:
                scheduler.step()
    if scheduler is not None and not per_step:
        scheduler.step()
    return sum(losses) / len(losses)


def test_accumulation_with_partial_last_group_clipping_and_epoch_scheduler_match_exactly(data):
    ours, ref = make_model(), make_model()
    opt, ref_opt = two_groups(ours), two_groups(ref)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    ref_sched = torch.optim.lr_scheduler.StepLR(ref_opt, step_size=1, gamma=0.5)
    for _ in range(2):
        torch.manual_seed(11)
        result = train_one_epoch(ours, data, _mse, opt, accumulate=3, clip_norm=0.3, scheduler=sched)
        torch.manual_seed(11)
        ref_mean = _hand_loop(ref, data, ref_opt, k=3, clip=0.3, scheduler=ref_sched)
        assert same_params(ours, ref)
        assert result.mean_loss == ref_mean
    assert (result.batches, result.steps, result.skipped_batches, result.skipped_steps) == (7, 3, 0, 0)
    assert len(result.grad_norms) == 3
    assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in ref_opt.param_groups] == [0.0125, 0.05]


def test_amp_grad_scaler_and_one_cycle_per_step_match_exactly(data):
    ours, ref = make_model(), make_model()
    opt, ref_opt = two_groups(ours, "adamw"), two_groups(ref, "adamw")
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[0.05, 0.1], total_steps=4)
    ref_sched = torch.optim.lr_scheduler.OneCycleLR(ref_opt, max_lr=[0.05, 0.1], total_steps=4)
    scaler, ref_scaler = torch.amp.GradScaler("cpu", init_scale=256.0), torch.amp.GradScaler("cpu", init_scale=256.0)
    torch.manual_seed(11)
    result = train_one_epoch(
        ours, data, _mse, opt, accumulate=2, clip_norm=1.0, scaler=scaler,
        autocast_dtype=torch.bfloat16, scheduler=sched,
    )
    torch.manual_seed(11)
    ref_mean = _hand_loop(ref, data, ref_opt, k=2, clip=1.0, scaler=ref_scaler, autocast=True,
                          scheduler=ref_sched, per_step=True)
    assert same_params(ours, ref)
    assert result.steps == 4 and result.mean_loss == ref_mean
    assert sched.last_epoch == ref_sched.last_epoch == 4


def test_loader_without_len_still_averages_the_last_partial_group(data):
    ours, ref = make_model(), make_model()
    for m in (ours, ref):
        m.body[2].p = 0.0  # no dropout: the two loops draw randomness differently here
    opt, ref_opt = two_groups(ours), two_groups(ref)
    result = train_one_epoch(ours, (batch for batch in data), _mse, opt, accumulate=3)
    _hand_loop(ref, data, ref_opt, k=3)
    assert result.steps == 3
    # The last group is rescaled by k/r instead of divided by r up front: equal up to rounding.
    for p, q in zip(ours.parameters(), ref.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-6, atol=1e-7)


def test_nan_batches_are_skipped_and_the_mean_uses_finite_losses_only(data):
    model = make_model()
    opt = two_groups(model)
    bad = list(data)
    bad[1] = (bad[1][0], torch.full_like(bad[1][1], float("nan")))
    result = train_one_epoch(model, bad, _mse, opt)
    assert (result.batches, result.steps, result.skipped_batches) == (7, 6, 1)
    assert math.isfinite(result.mean_loss)
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_train_mode_is_used_and_every_module_mode_restored(data):
    model = make_model()
    model.eval()
    model.head.train()  # a mixed state must come back as it was
    seen = []
    model.body[2].register_forward_pre_hook(lambda module, args: seen.append(module.training))
    train_one_epoch(model, data[:2], _mse, two_groups(model))
    assert seen == [True, True]
    assert not model.training and not model.body.training and model.head.training


def test_modes_are_restored_when_the_loss_function_raises(data):
    model = make_model()
    model.eval()

    def broken(out, y):
        raise RuntimeError("user bug")

    with pytest.raises(RuntimeError, match="user bug"):
        train_one_epoch(model, data, broken, two_groups(model))
    assert not any(m.training for m in model.modules())


def test_reduce_on_plateau_gets_the_mean_loss(data):
    model = make_model()
    opt = two_groups(model)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)
    first = train_one_epoch(model, data, _mse, opt, scheduler=sched)
    assert sched.best == first.mean_loss
    with pytest.raises(ValueError, match="once per epoch"):
        train_one_epoch(model, data, _mse, opt, scheduler=sched, scheduler_interval="step")


def test_batches_must_be_tuples(data):
    model = make_model()
    with pytest.raises(TypeError, match=r"\(inputs\.\.\., target\)"):
        train_one_epoch(model, [{"x": data[0][0]}], _mse, two_groups(model))


def test_graddoctor_finds_the_reference_loop_clean_and_leaves_results_unchanged(data):
    """Our own checks must stay silent on our own loop, and must not change what it computes."""
    watched, plain = make_model(), make_model()
    opt, plain_opt = two_groups(watched, "adamw"), two_groups(plain, "adamw")
    kwargs = dict(accumulate=2, clip_norm=1.0, autocast_dtype=torch.bfloat16)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=8)
    plain_sched = torch.optim.lr_scheduler.OneCycleLR(plain_opt, max_lr=0.05, total_steps=8)
    scaler, plain_scaler = torch.amp.GradScaler("cpu"), torch.amp.GradScaler("cpu")

    torch.manual_seed(2)
    with Session(standard_observers(mode="watch"), models=watched, optimizers=opt) as session:
        for _ in range(2):
            train_one_epoch(watched, data, _mse, opt, scheduler=sched, scaler=scaler, **kwargs)
    torch.manual_seed(2)
    for _ in range(2):
        train_one_epoch(plain, data, _mse, plain_opt, scheduler=plain_sched, scaler=plain_scaler, **kwargs)

    serious = [f for f in session.findings() if f.severity >= Severity.WARNING]
    assert serious == [], [f"{f.code} {f.message}" for f in serious]
    assert session.steps_taken == 8
    assert same_params(watched, plain)


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_graddoctor_run_finds_a_script_using_it_clean(graddoctor_cli):
    ran = graddoctor_cli(
        "run",
        "train.py",
        script="""
        import torch
        from torch import nn
        from torch.nn import functional as F
        from graddoctor import train_one_epoch

        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 2))
        optimizer = torch.optim.AdamW([
            {"params": model[0].parameters(), "lr": 1e-3},
            {"params": model[3].parameters(), "lr": 3e-3},
        ])
        data = [(torch.randn(16, 6), torch.randn(16, 2)) for _ in range(9)]
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=[1e-2, 3e-2], total_steps=15)
        scaler = torch.amp.GradScaler("cpu")
        for epoch in range(3):
            result = train_one_epoch(model, data, F.mse_loss, optimizer, accumulate=2, clip_norm=1.0,
                                     scaler=scaler, autocast_dtype=torch.bfloat16, scheduler=scheduler)
            print(f"epoch {epoch}: loss {result.mean_loss:.4f}, {result.steps} steps")
        """,
    )
    serious = [f for f in ran.report["findings"] if f["severity"] in ("error", "warning")]
    assert serious == [], ran.stdout
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.report["status"] == "completed"
    assert ran.report["steps_observed"] == 15
