"""Lint GD105 on lists of Parameters: a ZeRO-3-style shard list handed to the optimizer by a method is
registered there on purpose (silent); the edit wraps Parameters in nn.ParameterList, never nn.ModuleList."""

from __future__ import annotations

import textwrap

import pytest
import torch
from torch import nn

from graddoctor.editing.source import Source, apply_change
from graddoctor.lint.engine import lint_source
from graddoctor.rules import make
from graddoctor.rules.graph.gd105_unregistered_parameter import edit as gd105_edit

_ZERO3 = '''
import torch
from torch import nn


class ShardedMLP(nn.Module):
    """Each rank keeps only its shard of the flat weights; the shards are trained by a local optimizer."""

    def __init__(self, dim=8, world=2):
        super().__init__()
        self.dim, self.world = dim, world
        self.local_shards = [nn.Parameter(torch.randn(dim * dim // world) * 0.1) for _ in range(2)]

    def shard_parameters(self):
        for shard in self.local_shards:
            yield shard

    def forward(self, x):
        w1 = torch.cat([self.local_shards[0]] * self.world).view(self.dim, self.dim)
        w2 = torch.cat([self.local_shards[1]] * self.world).view(self.dim, self.dim)
        return torch.relu(x @ w1) @ w2


model = ShardedMLP()
optimizer = torch.optim.AdamW(model.shard_parameters(), lr=1e-3)
for _ in range(3):
    optimizer.zero_grad()
    model(torch.randn(4, 8)).pow(2).mean().backward()
    optimizer.step()
'''


def _gd105(text):
    return [f for f in lint_source(text, "train.py", lambda code: True).findings if f.code == "GD105"]


def test_shard_list_handed_to_the_optimizer_by_a_method_is_silent():
    assert _gd105(_ZERO3) == []


def test_the_same_list_never_handed_to_an_optimizer_fires():
    text = _ZERO3.replace("torch.optim.AdamW(model.shard_parameters(), lr=1e-3)",
                          "torch.optim.AdamW(model.parameters(), lr=1e-3)")
    assert [f.line for f in _gd105(text)] == [12]


_PARAMS = '''
import torch
from torch import nn


class Mixture(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.logits = [nn.Parameter(torch.zeros(4)) for _ in range(k)]

    def forward(self, x):
        return sum(x * w for w in self.logits)
'''

_APPENDED = '''
import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = []
        for _ in range(2):
            self.layers.append(nn.Linear(4, 4))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
'''


@pytest.mark.parametrize("text, wrapper", [(_PARAMS, "nn.ParameterList"), (_APPENDED, "nn.ModuleList")])
def test_edit_wraps_parameters_in_a_parameter_list_and_layers_in_a_module_list(text, wrapper):
    found = _gd105(text)
    assert len(found) == 1
    src = Source(text)
    change = gd105_edit.edit(found[0], src)
    edited = apply_change(src, change)
    assert f"= {wrapper}(" in edited
    namespace: dict = {}
    exec(compile(edited, "edited.py", "exec"), namespace)  # the oracle: the edited class builds, and registers
    cls = namespace["Mixture" if "Mixture" in namespace else "Stack"]
    assert len(list(cls().parameters())) > 0


def test_module_list_of_parameters_really_raises():
    with pytest.raises(TypeError):
        nn.ModuleList([nn.Parameter(torch.zeros(2))])


def test_edit_declines_a_list_whose_elements_it_cannot_tell():
    text = textwrap.dedent('''
        import torch
        from torch import nn


        class Holder(nn.Module):
            def __init__(self, parts):
                super().__init__()
                self.parts = [p for p in parts]
                self.w = torch.zeros(2, requires_grad=True)
    ''')
    src = Source(text)
    line = next(i + 1 for i, t in enumerate(text.splitlines()) if "self.parts =" in t)
    assert gd105_edit.edit(make("GD105", "a list on the module", file="t.py", line=line), src) is None
