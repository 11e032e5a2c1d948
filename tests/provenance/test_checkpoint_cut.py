"""GD113: a reentrant checkpoint none of whose inputs requires grad cuts its stage off (issue 30).

One finding at the `checkpoint(...)` line naming the construct, the parameters and the fix;
never GD110 with an empty construct name. The near misses (an input that requires grad,
non-reentrant checkpointing) train the same stages and stay silent.
"""

from __future__ import annotations

import warnings

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

import graddoctor


class Adapter(nn.Module):
    def __init__(self, d: int = 16) -> None:
        super().__init__()
        self.base = nn.Linear(d, d).requires_grad_(False)
        self.down, self.up = nn.Linear(d, 4, bias=False), nn.Linear(4, d, bias=False)

    def forward(self, x):
        return x + self.base(x) + self.up(self.down(x))


class Model(nn.Module):
    def __init__(self, reentrant: bool) -> None:
        super().__init__()
        self.embed = nn.Embedding(20, 16)
        self.blocks = nn.ModuleList(Adapter() for _ in range(2))
        self.head = nn.Linear(16, 20)
        self.reentrant = reentrant

    def forward(self, ids):
        h = self.embed(ids)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=self.reentrant)  # the line GD113 names
        return self.head(h)


def _train(model: Model) -> graddoctor.Report:
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    ids = torch.randint(0, 20, (4, 6))
    with warnings.catch_warnings(), graddoctor.watch(model, opt, deep=True) as watcher:
        warnings.simplefilter("ignore")  # torch's own "None of the inputs have requires_grad=True"
        for _ in range(3):
            loss = nn.functional.cross_entropy(model(ids).flatten(0, 1), ids.flatten())
            opt.zero_grad()
            loss.backward()
            opt.step()
    return watcher.report()


def _checkpoint_line() -> int:
    import inspect

    lines, start = inspect.getsourcelines(Model.forward)
    return start + next(i for i, text in enumerate(lines) if "checkpoint(" in text)


def test_frozen_embeddings_into_a_reentrant_checkpoint_is_one_gd113_at_the_checkpoint_line():
    model = Model(reentrant=True)
    model.embed.requires_grad_(False)
    report = _train(model)
    found = [f for f in report.findings if f.code in ("GD113", "GD110", "GD104")]
    assert [f.code for f in found] == ["GD113"], [f.message for f in found]
    gd113 = found[0]
    assert gd113.line == _checkpoint_line()
    assert set(gd113.subjects) == {f"model.blocks.{i}.{n}.weight" for i in (0, 1) for n in ("down", "up")}
    assert model.blocks[0].down.weight.grad is None  # the oracle: torch gave it none
    assert "use_reentrant=True" in gd113.message and "use_reentrant=False" in gd113.hint
    assert "enable_input_require_grads()" in gd113.hint
    assert "under  " not in gd113.message and "out of )" not in gd113.hint


def test_an_input_that_requires_grad_is_silent():
    model = Model(reentrant=True)  # trainable embeddings: the checkpoint's input requires grad
    report = _train(model)
    assert model.blocks[0].down.weight.grad is not None
    assert not [f for f in report.findings if f.severity.value >= 2], [f.message for f in report.findings]


def test_non_reentrant_checkpointing_with_frozen_embeddings_is_silent():
    model = Model(reentrant=False)
    model.embed.requires_grad_(False)
    report = _train(model)
    assert model.blocks[1].up.weight.grad is not None
    assert not [f for f in report.findings if f.severity.value >= 2], [f.message for f in report.findings]
