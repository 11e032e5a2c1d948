"""A watched model is saved and copied as the user built it: graddoctor's hooks are not part of it.

The word_language_model example saves its whole model with `torch.save(model, f)` after
each epoch; EMA and target networks are made with `copy.deepcopy(model)`. Both go through
`nn.Module.__getstate__`, which must not hand out graddoctor's per-module hooks.
"""

from __future__ import annotations

import copy
import io

import torch
from torch import nn

import graddoctor


def users_hook(module, args, output):  # a hook of the user's own (module-level: picklable)
    return None


def _train(model, optimizer, steps=3):
    for _ in range(steps):
        x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def test_torch_save_and_deepcopy_of_a_watched_model_with_dropout():
    model = nn.Sequential(nn.Linear(8, 32), nn.Dropout(0.2), nn.ReLU(), nn.Linear(32, 3))
    model.register_forward_hook(users_hook)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with graddoctor.watch(model, optimizer):
        _train(model, optimizer)
        assert len(model._forward_hooks) >= 2  # the user's and graddoctor's
        buffer = io.BytesIO()
        torch.save(model, buffer)  # "Can't pickle local object" before
        buffer.seek(0)
        loaded = torch.load(buffer, weights_only=False)
        twin = copy.deepcopy(model)
    for other in (loaded, twin):
        assert len(other._forward_hooks) == 1  # only the user's hook travels
        for a, b in zip(model.state_dict().values(), other.state_dict().values()):
            assert torch.equal(a, b)
    # after the session the original is as the user left it, their hook included
    assert len(model._forward_hooks) == 1
