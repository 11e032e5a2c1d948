"""GD212, GD308, GD309 and GD507 read the run and change nothing: the parameters after training are
bit-identical with graddoctor attached, and the model hooks they add are gone afterwards, also when
the user's code raised."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch


def _accumulating(model, x, y):
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for i in range(0, 64, 8):
        F.cross_entropy(model(x[i:i + 8]), y[i:i + 8]).backward()
        if (i // 8) % 4 == 3:
            opt.step()
            opt.zero_grad()


def _bf16(model, x, y):
    model.to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    for i in range(0, 64, 8):
        loss = F.cross_entropy(model(x[i:i + 8].to(torch.bfloat16)).float(), y[i:i + 8])
        opt.zero_grad()
        loss.backward()
        opt.step()


def _fp16_autocast(model, x, y):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for i in range(0, 64, 8):
        with torch.autocast("cpu", dtype=torch.float16):
            loss = F.mse_loss(model(x[i:i + 8]), 1e-3 * F.one_hot(y[i:i + 8], 3).float())
        opt.zero_grad()
        loss.backward()
        opt.step()


def _ignored(model, x, y):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i in range(0, 64, 8):
        loss = F.cross_entropy(model(x[i:i + 8]), torch.where(y[i:i + 8] == 0, -100, y[i:i + 8]))
        opt.zero_grad()
        loss.backward()
        opt.step()


def _trained(loop, watched: bool) -> dict:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 3))
    x, y = torch.randn(64, 12), torch.randint(0, 3, (64,))
    if watched:
        with watch():
            loop(model, x, y)
    else:
        loop(model, x, y)
    assert not model._forward_pre_hooks and not model._forward_hooks
    return {k: v.clone() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("loop", [_accumulating, _bf16, _fp16_autocast, _ignored])
def test_parameters_are_bit_identical_with_graddoctor_attached(loop):
    plain, watched = _trained(loop, False), _trained(loop, True)
    for key in plain:
        assert torch.equal(plain[key], watched[key]), key


def test_the_autocast_hook_is_removed_when_the_user_raises():
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(KeyError), watch():
        for _ in range(3):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = model(torch.randn(8, 4)).float().pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        assert model._forward_pre_hooks  # hooked while watched: the test checks a real removal
        raise KeyError("the user's bug")
    assert not model._forward_pre_hooks
