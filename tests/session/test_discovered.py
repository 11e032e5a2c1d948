"""The session's registry of models and optimizers (session/discovered.py), on its own.

Names and step counts of optimizers, also after the script dropped one: what the report's
`steps_by_optimizer` and the sampling observers' budgets are built from.
"""

from __future__ import annotations

import gc

import torch
from torch import nn

from graddoctor.session.discovered import Discovered


def _registry(**given) -> tuple[Discovered, list[int]]:
    backwards = [0]
    return Discovered(None, given.get("optimizers"), namespace={}, backward_count=lambda: backwards[0]), backwards


def _stepped(registry: Discovered, optimizer, times: int) -> None:
    for _ in range(times):
        if registry.first_step(optimizer):
            registry.name_optimizer(optimizer)
        registry.count_step(optimizer)


def test_optimizers_of_one_class_are_numbered_in_order_of_first_step():
    registry, _ = _registry()
    params = [nn.Parameter(torch.zeros(2))]
    first, second = torch.optim.SGD(params, lr=0.1), torch.optim.SGD(params, lr=0.1)
    _stepped(registry, first, 2)
    _stepped(registry, second, 3)
    assert registry.steps_by_name() == {"SGD": 2, "SGD#2": 3}
    assert registry.iterations == 3


def test_a_given_name_is_kept():
    params = [nn.Parameter(torch.zeros(2))]
    opt = torch.optim.Adam(params)
    registry, _ = _registry(optimizers={"G": opt})
    _stepped(registry, opt, 1)
    assert registry.steps_by_name() == {"G": 1}
    assert [r.optimizer for r in registry.optimizers()] == [opt]


def test_a_dropped_optimizer_keeps_its_name_and_steps_and_its_parameters_are_former():
    registry, backwards = _registry()
    param = nn.Parameter(torch.zeros(2))
    opt = torch.optim.SGD([param], lr=0.1)
    registry.adopt(opt)
    _stepped(registry, opt, 4)
    # held strongly while recent: until another optimizer steps for the first time (the next fold's)
    following = torch.optim.Adam([nn.Parameter(torch.zeros(2))])
    _stepped(registry, following, 1)
    backwards[0] = 7
    del opt
    gc.collect()
    assert [r.optimizer for r in registry.optimizers()] == [following]
    assert registry.steps_by_name() == {"SGD": 4, "Adam": 1}
    assert registry.iterations == 4  # the freed one's steps still count for budgets
    assert [(p is param, freed_at) for p, freed_at in registry.former_params()] == [(True, 7)]


def test_first_step_is_true_once_per_optimizer_and_counts_a_discovery():
    registry, _ = _registry()
    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1)
    assert registry.first_step(opt) is True
    assert registry.first_step(opt) is False
    assert registry.discoveries == 1
