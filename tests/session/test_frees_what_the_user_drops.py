"""graddoctor never keeps alive what the user's loop has let go.

Reading a function frame's variables (to name models, to tag the state a loop carries) makes
Python < 3.13 keep a snapshot of them in the frame: a batch of logits read at one backward
would live on into the next forward, which on a large vocabulary is gigabytes of GPU memory.
"""

from __future__ import annotations

import gc
import weakref

import pytest
import torch
from torch import nn
from torch.nn import functional as F

import graddoctor


class LanguageModelHead(nn.Module):
    def __init__(self, vocab: int = 64, dim: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        out, _ = self.rnn(self.embed(ids))
        return self.head(out)


def train(steps: int, deep: bool) -> list[bool]:
    """A function-scoped loop (the frame whose snapshot would pin tensors); returns, at each step
    after the first, whether the previous step's logits, loss and batch were still alive."""
    torch.manual_seed(0)
    model = LanguageModelHead()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    alive = []
    previous: list[weakref.ref] = []
    with graddoctor.watch(deep=deep):
        for step in range(steps):
            batch = {"input_ids": torch.randint(0, 64, (4, 12)), "labels": torch.randint(0, 64, (4, 12))}
            logits = model(batch["input_ids"])
            loss = F.cross_entropy(logits.reshape(-1, 64), batch["labels"].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            gc.collect()
            if previous:
                alive.append(any(ref() is not None for ref in previous))
            previous = [weakref.ref(logits), weakref.ref(loss), weakref.ref(batch["input_ids"])]
    return alive


@pytest.mark.parametrize("deep", [False, True])
def test_the_previous_steps_logits_loss_and_batch_are_freed_once_the_loop_rebinds_them(deep):
    assert train(6, deep) == [False] * 5


def test_reading_the_frame_leaves_the_functions_variables_as_they_were():
    # The snapshot gives its tensors back; the variables themselves must be untouched.
    from graddoctor.locate import frame_locals
    import sys

    def loop():
        x = torch.ones(3)
        pair = (torch.zeros(1), 1)
        lr = 0.1
        seen = frame_locals(sys._getframe())
        return x, pair, lr, seen

    x, pair, lr, seen = loop()
    assert torch.equal(x, torch.ones(3)) and pair[1] == 1 and lr == 0.1
    assert set(seen) >= {"x", "pair", "lr"}


def test_module_level_names_are_never_taken_out_of_the_namespace():
    from graddoctor.locate import frame_locals
    import sys

    namespace: dict = {"frame_locals": frame_locals, "sys": sys, "torch": torch}
    exec("weights = torch.ones(2)\nseen = frame_locals(sys._getframe())", namespace)
    assert torch.equal(namespace["weights"], torch.ones(2))
