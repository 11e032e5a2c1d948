"""GD502: one module object repeated in a container; weights shared on purpose stay silent."""

from __future__ import annotations

import copy

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch

from .helpers import findings, loud


class Tower(nn.Module):
    def __init__(self, blocks: nn.Module, width=16):
        super().__init__()
        self.inp = nn.Linear(8, width)
        self.blocks = blocks
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        h = self.inp(x)
        for block in self.blocks:
            h = h + torch.tanh(block(h))
        return self.out(h)


def _fit(model, steps=6):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    with watch(model, opt) as w:
        for _ in range(steps):
            x = torch.randn(32, 8)
            loss = F.mse_loss(model(x), x.sum(1, keepdim=True))
            opt.zero_grad()
            loss.backward()
            opt.step()
    return w


def test_list_times_n_in_a_module_list():
    block = nn.Linear(16, 16)
    model = Tower(nn.ModuleList([block] * 3))  # built while not watched: the owner's __init__ line is used
    w = _fit(model)
    [f] = findings(w, "GD502")
    assert f.subjects == ["model.blocks.0", "model.blocks.1", "model.blocks.2"]
    assert "same Linear object 3 times" in f.message and "272 weights" in f.message
    # oracle: the three "layers" really are one set of weights
    assert sum(p.numel() for p in model.blocks.parameters()) == 272
    assert f.file.endswith("test_copies.py") and "self.blocks = blocks" in open(f.file).read().splitlines()[f.line - 1]


def test_sequential_built_while_watched_points_at_its_construction():
    with watch() as w:  # models are discovered at the first backward
        block = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
        body = nn.Sequential(*[block] * 2, nn.Linear(8, 1))  # the line GD502 must name
        opt = torch.optim.SGD(body.parameters(), lr=0.1)
        for _ in range(3):
            loss = body(torch.randn(4, 8)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    # discovery finds every live model, earlier tests' included: take the one built here
    [f] = [f for f in findings(w, "GD502") if f.subjects == ["body.0", "body.1"]]
    line = open(f.file).read().splitlines()[f.line - 1]
    assert "nn.Sequential(*[block] * 2" in line and f.subjects == ["body.0", "body.1"]


def test_weight_tying_reuse_in_forward_and_repeated_activations_are_silent():
    class TiedLM(nn.Module):
        def __init__(self, vocab=50, width=16, depth=3):
            super().__init__()
            self.embed = nn.Embedding(vocab, width)
            self.shared = nn.Linear(width, width)  # ALBERT-style: one layer, called depth times
            self.depth = depth
            act = nn.GELU()
            self.mix = nn.Sequential(nn.Linear(width, width), act, nn.Linear(width, width), act)
            self.decoder = nn.Linear(width, vocab)
            self.decoder.weight = self.embed.weight  # weight tying: one Parameter on purpose

        def forward(self, ids):
            h = self.embed(ids)
            for _ in range(self.depth):
                h = h + torch.tanh(self.shared(h))
            return self.decoder(self.mix(h))

    model = TiedLM()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    with watch(model, opt) as w:
        for _ in range(6):
            ids = torch.randint(0, 50, (4, 12))
            logits = model(ids[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, 50), ids[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert loud(w) == []


def test_deep_copies_are_silent():
    block = nn.Linear(16, 16)
    w = _fit(Tower(nn.ModuleList([copy.deepcopy(block) for _ in range(3)])))
    assert loud(w) == []
