"""float16 AMP with a CUDA GradScaler: the case GradScaler exists for. Runs only where a GPU is lent."""

from __future__ import annotations

import pytest
import torch
from torch.nn import functional as F

from graddoctor import safe_backward, train_one_epoch

from helper_models import all_params, make_model, same_params, two_groups

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _cuda_data():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(8, 6, generator=g).cuda(), torch.randn(8, 2, generator=g).cuda()) for _ in range(7)]


def _forward(model, x, y):
    with torch.autocast("cuda", dtype=torch.float16):
        return F.mse_loss(model(x).float(), y)


def test_safe_backward_float16_matches_a_hand_written_loop():
    data = _cuda_data()
    ours, ref = make_model().cuda(), make_model().cuda()
    for m in (ours, ref):
        m.body[2].p = 0.0
    opt, ref_opt = two_groups(ours, "adamw"), two_groups(ref, "adamw")
    scaler, ref_scaler = torch.amp.GradScaler("cuda"), torch.amp.GradScaler("cuda")
    for x, y in data[:6]:
        safe_backward(_forward(ours, x, y), opt, scaler=scaler, clip_norm=1.0, accumulate=2)
    for i, (x, y) in enumerate(data[:6]):
        ref_scaler.scale(_forward(ref, x, y) / 2).backward()
        if (i + 1) % 2 == 0:
            ref_scaler.unscale_(ref_opt)
            torch.nn.utils.clip_grad_norm_(all_params(ref_opt), 1.0)
            ref_scaler.step(ref_opt)
            ref_scaler.update()
            ref_opt.zero_grad()
    assert same_params(ours, ref)
    assert scaler.get_scale() == ref_scaler.get_scale()


def test_float16_overflow_is_skipped_by_the_scaler():
    data = _cuda_data()
    model = make_model().cuda()
    opt = two_groups(model)
    scaler = torch.amp.GradScaler("cuda", init_scale=2.0**40)  # float16 gradients overflow at this scale
    before = [p.detach().clone() for p in model.parameters()]
    result = safe_backward(_forward(model, *data[0]) * 100, opt, scaler=scaler)
    assert result.skipped and scaler.get_scale() == 2.0**39
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))


def test_train_one_epoch_float16_trains():
    data = _cuda_data()
    model = make_model().cuda()
    opt = two_groups(model, "adamw")
    first = train_one_epoch(model, data, F.mse_loss, opt, scaler=torch.amp.GradScaler("cuda"),
                            autocast_dtype=torch.float16, accumulate=2, clip_norm=1.0)
    assert first.steps + first.skipped_steps == 4
    assert all(torch.isfinite(p).all() for p in model.parameters())
