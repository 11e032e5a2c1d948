"""GD309 fp16-autocast-without-grad-scaler: float16 autocast training whose small gradients underflow
because no GradScaler (or a disabled one) scales the loss, and the near misses."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch


def _data(seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(2048, 24, generator=g)
    return x, 1e-3 * torch.tanh(x[:, :4].sum(1, keepdim=True))  # daily returns: small targets, small gradients


def _regressor():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(24, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                         nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))


def _line_of(marker: str) -> int:
    return next(i for i, text in enumerate(open(__file__).read().splitlines(), 1) if f"line: {marker}" in text)


def _train(model, dtype=torch.float16, scaler=None, steps=48, data=None):
    x, y = data or _data()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(steps):
        i = (step * 256) % len(x)
        with torch.autocast("cpu", dtype=dtype):
            loss = F.mse_loss(model(x[i:i + 256]), y[i:i + 256])
        opt.zero_grad()
        if scaler is None:
            loss.backward()  # line: unscaled backward
            opt.step()
        else:
            scaler.scale(loss).backward()  # line: scaler backward
            scaler.step(opt)
            scaler.update()


def _gd309(w):
    assert not w.session.internal_errors, w.session.internal_errors
    return [f for f in w.report().findings if f.code == "GD309"]


def test_fp16_autocast_without_a_scaler_warns_at_the_backward():
    with watch() as w:
        _train(_regressor())
    [f] = _gd309(w)
    assert f.line == _line_of("unscaled backward")
    assert f.evidence["zero_fraction"] >= 0.25 and f.evidence["near_floor_fraction"] >= 0.05
    assert f.evidence["autocast_dtype"] == "float16" and f.evidence["grad_scaler_seen"] is False


def test_a_scaler_disabled_by_its_config_counts_as_none():
    with watch() as w:
        _train(_regressor(), scaler=torch.amp.GradScaler("cpu", enabled=False))
    [f] = _gd309(w)
    assert f.line == _line_of("scaler backward")


def test_float16_really_zeroes_gradients_that_float32_keeps():
    """The oracle: after the same training, one batch's gradient in float16 and in float32."""
    model = _regressor()
    _train(model, dtype=torch.bfloat16)
    x, y = _data(seed=1)
    zeros = []
    for enabled in (True, False):
        model.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16, enabled=enabled):
            loss = F.mse_loss(model(x[:256]), y[:256])
        loss.backward()
        zeros.append(sum(int((p.grad == 0).sum()) for p in model.parameters()))
    assert zeros[0] > 1.1 * zeros[1]


# --- near misses ------------------------------------------------------------------------------

def test_bf16_autocast_without_a_scaler_is_silent():
    with watch() as w:
        _train(_regressor(), dtype=torch.bfloat16)
    assert _gd309(w) == []


def test_fp16_with_an_enabled_grad_scaler_is_silent():
    with watch() as w:
        _train(_regressor(), scaler=torch.amp.GradScaler("cpu", init_scale=2.0 ** 16))
    assert _gd309(w) == []


def test_fp16_whose_gradients_stay_large_is_silent():
    """A classifier with unit-scale targets: float16's range is never reached."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 24, generator=g)
    y = x[:, :4].sum(1, keepdim=True)
    with watch() as w:
        _train(_regressor(), data=(x, y))
    assert _gd309(w) == []
