"""GD401 judges the DDP wrappers this session saw at work, not every wrapper alive in the process.

A notebook's earlier cell, or an earlier test in the same worker, can leave a DDP wrapper alive;
a later `watch()` on another model finds it among the live modules. None of its parameters is
reached by this run's backward, which read as "every parameter unused" (a false GD401)."""

from __future__ import annotations

import gc

import pytest
import torch
import torch.distributed as dist
from torch import nn

from graddoctor import watch


@pytest.fixture
def one_rank_group(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    yield
    dist.destroy_process_group()
    gc.collect()  # the wrappers' reducers hold reference cycles


def _train(model, opt, steps=4):
    x, y = torch.randn(16, 6), torch.randn(16, 1)
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 8)
        self.head = nn.Linear(8, 1)
        self.aux = nn.Linear(8, 1)  # never called in forward

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


def test_a_wrapper_left_alive_by_earlier_work_is_not_judged(one_rank_group):
    earlier = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(6, 8), nn.Linear(8, 1)))
    _train(earlier, torch.optim.SGD(earlier.parameters(), lr=0.01), steps=2)

    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    with watch() as w:  # no models named: the session finds the live ones, `earlier` among them
        _train(model, opt)
    assert earlier is not None
    assert "GD401" not in w.report().codes
    ddp = next(o for o in w.session.observers if o.name == "ddp")
    assert ddp._live_ddp() == [earlier] and ddp._find_ddp() == [] and ddp.samples == []


def test_the_wrapper_this_run_trains_is_still_judged_beside_a_stale_one(one_rank_group):
    earlier = nn.parallel.DistributedDataParallel(nn.Linear(6, 1))
    _train(earlier, torch.optim.SGD(earlier.parameters(), lr=0.01), steps=1)

    model = nn.parallel.DistributedDataParallel(TwoHeads(), find_unused_parameters=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with watch() as w:
        _train(model, opt)
    gd401 = [f for f in w.report().findings if f.code == "GD401"]
    assert len(gd401) == 1 and "TwoHeads" in gd401[0].message
    assert all("aux" in s for s in gd401[0].subjects)
    ddp = next(o for o in w.session.observers if o.name == "ddp")
    assert ddp._find_ddp() == [model] and ddp.samples
