"""GD308 low-precision-updates-lost: bfloat16/float16 parameters whose updates round away, and the near
misses (float32 parameters under autocast, a learning rate that moves them, float32 master weights)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch
from graddoctor.finding import Severity


def _data(n=256, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 128, generator=g)
    return x, (x[:, :8].sum(1) > 0).long()


def _head(dtype=torch.float32):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(128, 64), nn.GELU(), nn.Linear(64, 2)).to(dtype)


def _line_of(marker: str) -> int:
    return next(i for i, text in enumerate(open(__file__).read().splitlines(), 1) if f"line: {marker}" in text)


def _train(head, opt, input_dtype=None, autocast=None, epochs=2):
    x, y = _data()
    for _ in range(epochs):
        for i in range(0, len(x), 32):
            xb = x[i:i + 32].to(input_dtype) if input_dtype else x[i:i + 32]
            if autocast:
                with torch.autocast("cpu", dtype=autocast):
                    out = head(xb)
            else:
                out = head(xb)
            loss = F.cross_entropy(out.float(), y[i:i + 32])
            opt.zero_grad()
            loss.backward()
            opt.step()  # line: low precision step


def _gd308(w):
    assert not w.session.internal_errors, w.session.internal_errors
    return [f for f in w.report().findings if f.code == "GD308"]


def test_bf16_parameters_with_a_fine_tuning_lr_warn_at_the_step():
    head = _head(torch.bfloat16)
    opt = torch.optim.AdamW(head.parameters(), lr=1e-5)
    with watch() as w:
        _train(head, opt, input_dtype=torch.bfloat16)
    [f] = _gd308(w)
    assert f.severity == Severity.WARNING and f.line == _line_of("low precision step")
    assert f.evidence["dtype"] == "bfloat16" and f.evidence["lr"] == 1e-5
    assert f.evidence["fraction_unchanged"] > 0.5 and f.evidence["measured_steps"] >= 3


def test_the_weights_really_do_not_move():
    """The oracle: what the finding measures, checked against torch without graddoctor."""
    head = _head(torch.bfloat16)
    before = head[0].weight.detach().clone()
    _train(head, torch.optim.AdamW(head.parameters(), lr=1e-5), input_dtype=torch.bfloat16, epochs=1)
    assert (head[0].weight == before).float().mean() > 0.5


def test_fp16_parameters_with_small_sgd_updates_warn():
    head = _head(torch.float16)
    with watch() as w:
        _train(head, torch.optim.SGD(head.parameters(), lr=1e-3), input_dtype=torch.float16)
    [f] = _gd308(w)
    assert f.evidence["dtype"] == "float16"


# --- near misses ------------------------------------------------------------------------------

def test_fp32_parameters_under_bf16_autocast_are_silent():
    head = _head()
    with watch() as w:
        _train(head, torch.optim.AdamW(head.parameters(), lr=1e-5), autocast=torch.bfloat16)
    assert _gd308(w) == []


def test_bf16_parameters_with_a_learning_rate_that_moves_them_are_silent():
    head = _head(torch.bfloat16)
    with watch() as w:
        _train(head, torch.optim.AdamW(head.parameters(), lr=1e-3), input_dtype=torch.bfloat16)
    assert _gd308(w) == []


class MasterWeightsSGD(torch.optim.Optimizer):
    """SGD over bfloat16 parameters that keeps a float32 copy of each in its state, as mixed-precision
    optimizers do: small updates accumulate in the copy, the parameter is its rounding."""

    def __init__(self, params, lr):
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "master" not in state:
                    state["master"] = p.detach().float()
                state["master"].add_(p.grad.float(), alpha=-group["lr"])
                p.copy_(state["master"])


def test_an_optimizer_with_float32_master_weights_is_silent():
    head = _head(torch.bfloat16)
    with watch() as w:
        _train(head, MasterWeightsSGD(head.parameters(), lr=1e-3), input_dtype=torch.bfloat16)
    assert _gd308(w) == []


def test_sparse_embedding_gradients_are_skipped_without_failing():
    """A sparse gradient has no flat view: it is not compared (and graddoctor does not fail on it)."""
    torch.manual_seed(0)
    embed = nn.Embedding(50, 64, sparse=True).to(torch.bfloat16)
    opt = torch.optim.SGD(embed.parameters(), lr=1e-4)
    with watch() as w:
        for _ in range(12):
            loss = embed(torch.randint(0, 50, (16,))).float().pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert _gd308(w) == []
