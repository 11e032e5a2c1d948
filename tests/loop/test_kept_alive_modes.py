"""The GD207 window leaves the user's own torch-function modes in place."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F
from torch.overrides import TorchFunctionMode

from graddoctor import watch


class Counting(TorchFunctionMode):
    calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        Counting.calls += 1
        return func(*args, **(kwargs or {}))


def test_user_mode_entered_inside_our_window_survives_its_close():
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 4)
    user_mode = Counting()
    with watch(model, opt, kept_alive_every=1) as w:
        for step in range(6):
            if step == 2:  # our window opened at the end of step 2's predecessor
                user_mode.__enter__()
            opt.zero_grad()
            F.mse_loss(model(x), torch.zeros(8, 1)).backward()
            opt.step()
        assert torch._C._len_torch_function_stack() >= 1
        before = Counting.calls
        torch.ones(1) + 1
        assert Counting.calls > before  # still active
        user_mode.__exit__(None, None, None)
    assert torch._C._len_torch_function_stack() == 0
    assert not w.session.internal_errors
