"""GD212 accumulation-without-scaling: micro-batch mean losses backpropagated N times per step
without dividing by N, and the accumulation loops written correctly that must stay silent."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch
from graddoctor.finding import Severity


def _data(n=256, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 10, generator=g)
    return x, (x[:, :3].sum(1) > 0).long()


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 2))


def _line_of(marker: str) -> int:
    return next(i for i, text in enumerate(open(__file__).read().splitlines(), 1) if f"line: {marker}" in text)


def _accumulate(model, opt, accum_steps=4, scale=None, micro=16, loss_fn=None):
    """A classifier trained with gradient accumulation as tutorials write it."""
    x, y = _data()
    loss_fn = loss_fn or nn.CrossEntropyLoss()
    opt.zero_grad()
    for i in range(0, len(x), micro):
        loss = loss_fn(model(x[i:i + micro]), y[i:i + micro])
        if scale is not None:
            loss = scale(loss, accum_steps)
        loss.backward()  # line: accumulating backward
        if (i // micro + 1) % accum_steps == 0:
            opt.step()  # line: accumulation step
            opt.zero_grad()


def _gd212(w):
    assert not w.session.internal_errors, w.session.internal_errors
    return [f for f in w.report().findings if f.code == "GD212"]


def test_sgd_accumulation_without_division_warns_at_the_backward_line():
    model = _model()
    with watch() as w:
        _accumulate(model, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    [f] = _gd212(w)
    assert f.severity == Severity.WARNING
    assert f.line == _line_of("accumulating backward")
    assert [r.line for r in f.related] == [_line_of("accumulation step")]
    assert f.evidence["backwards_per_step"] == 4 and f.evidence["accumulating_steps"] == 4
    assert f.evidence["reduction"] == "mean" and f.evidence["loss_node"] == "NllLossBackward0"
    assert "4 x lr" in f.message


def test_the_gradient_really_is_the_sum_of_the_micro_batch_means():
    """The oracle: what the finding claims, checked against torch."""
    model = _model()
    x, y = _data(64)
    for i in range(0, 64, 16):
        F.cross_entropy(model(x[i:i + 16]), y[i:i + 16]).backward()
    summed = model[0].weight.grad.clone()
    model.zero_grad()
    F.cross_entropy(model(x), y).backward()
    assert torch.allclose(summed, 4 * model[0].weight.grad, atol=1e-6)


@pytest.mark.parametrize("make", [lambda p: torch.optim.Adam(p, lr=1e-3), lambda p: torch.optim.AdamW(p, lr=1e-3),
                                  lambda p: torch.optim.RMSprop(p, lr=1e-3)])
def test_adaptive_optimizers_make_it_information(make):
    model = _model()
    with watch() as w:
        _accumulate(model, make(model.parameters()))
    [f] = _gd212(w)
    assert f.severity == Severity.INFO and "mostly cancels" in f.message


def test_a_gradscaler_scaled_loss_is_read_through_the_scale():
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    x, y = _data()
    with watch() as w:
        for i in range(0, len(x), 16):
            loss = F.cross_entropy(model(x[i:i + 16]), y[i:i + 16])
            scaler.scale(loss).backward()
            if (i // 16 + 1) % 4 == 0:
                scaler.step(opt)
                scaler.update()
                opt.zero_grad()
    [f] = _gd212(w)
    assert f.evidence["backwards_per_step"] == 4


# --- near misses ------------------------------------------------------------------------------

def test_loss_divided_by_the_accumulation_steps_is_silent():
    model = _model()
    with watch() as w:
        _accumulate(model, torch.optim.SGD(model.parameters(), lr=0.05), scale=lambda loss, n: loss / n)
    assert _gd212(w) == []


def test_summed_token_loss_divided_by_the_token_count_is_silent():
    """Hugging Face's fix: sum over the micro-batch, divide by the tokens of the whole accumulated batch."""
    model = _model()
    with watch() as w:
        _accumulate(model, torch.optim.SGD(model.parameters(), lr=0.05),
                    loss_fn=lambda out, y: F.cross_entropy(out, y, reduction="sum") / 64)
    assert _gd212(w) == []


def test_sum_reduction_without_division_is_not_this_finding():
    model = _model()
    with watch() as w:
        _accumulate(model, torch.optim.SGD(model.parameters(), lr=0.001),
                    loss_fn=nn.CrossEntropyLoss(reduction="sum"))
    assert _gd212(w) == []


def test_one_backward_per_step_is_silent():
    model = _model()
    with watch() as w:
        _accumulate(model, torch.optim.SGD(model.parameters(), lr=0.05), accum_steps=1)
    assert _gd212(w) == []


def test_several_losses_summed_into_one_backward_are_silent():
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = _data()
    with watch() as w:
        for i in range(0, len(x), 64):
            parts = [F.cross_entropy(model(x[j:j + 16]), y[j:j + 16]) for j in range(i, i + 64, 16)]
            opt.zero_grad()
            sum(parts).backward()
            opt.step()
    assert _gd212(w) == []


def test_one_backward_per_task_before_one_step_is_silent():
    """Multi-task training: each task's loss backpropagated on its own line, the sum meant."""
    torch.manual_seed(0)
    trunk, head_a, head_b = nn.Linear(10, 16), nn.Linear(16, 2), nn.Linear(16, 1)
    params = [*trunk.parameters(), *head_a.parameters(), *head_b.parameters()]
    opt = torch.optim.SGD(params, lr=0.05)
    x, y = _data()
    with watch(trunk) as w:
        for i in range(0, len(x), 32):
            xb, yb = x[i:i + 32], y[i:i + 32]
            opt.zero_grad()
            F.cross_entropy(head_a(torch.relu(trunk(xb))), yb).backward()
            F.mse_loss(head_b(torch.relu(trunk(xb))).squeeze(1), xb[:, 0]).backward()
            opt.step()
    assert _gd212(w) == []


def test_two_accumulating_steps_are_needed():
    model = _model()
    with watch() as w:
        _accumulate(model, torch.optim.SGD(model.parameters(), lr=0.05), accum_steps=16)  # one step of 16
    assert _gd212(w) == []
