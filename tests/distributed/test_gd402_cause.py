"""GD402 names the line that made the replicas differ (the wrapped model called without DDP) when a
rank recorded it, else the step line with what to look for."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
from torch import nn

from graddoctor import watch
from graddoctor.rules.frameworks.gd402_ddp_replicas_diverged.judge import compact, replicas_diverged

_SOURCE = Path(__file__).read_text().splitlines()


def sample(step, prints, cause=None):
    out = {"step": step, "file": "train.py", "line": 30, "prints": prints}
    if cause:
        out["cause"] = {"file": "train.py", "line": cause, "kind": "unwrapped"}
    return out


def test_the_unwrapped_call_recorded_by_a_diverged_rank_is_the_finding_line():
    samples = {0: [sample(1, {"w": 5}), sample(2, {"w": 6})],
               1: [compact(sample(1, {"w": 5})), compact(sample(2, {"w": 9}, cause=24))]}
    finding = replicas_diverged(samples, lambda rank, step: {"w": 9})
    assert (finding.line, finding.step) == (24, 2)
    assert [r.line for r in finding.related] == [30]
    assert finding.evidence == {"step": 2, "ranks": [1], "parameters": 1, "cause": "unwrapped"}


def test_without_a_known_cause_the_step_line_stays_and_says_what_to_look_for():
    samples = {0: [sample(1, {"w": 5})], 1: [sample(1, {"w": 7})]}
    finding = replicas_diverged(samples)
    assert finding.line == 30 and "model.module(x)" in finding.message
    assert finding.evidence["ranks"] == [1]


@pytest.fixture
def one_rank_group(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    yield
    dist.destroy_process_group()
    # The DDP wrapper lives on in reference cycles (its reducer's hooks) until a collection: left to
    # chance, a later watch() in this worker found it among the live models (a GD401 in another test).
    gc.collect()


def test_a_training_forward_of_the_wrapped_module_is_recorded_at_its_line(one_rank_group):
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 4)
    with watch(model, opt) as w:
        for i in range(3):
            opt.zero_grad()
            out = model(x) if i == 0 else model.module(x)  # bypasses DDP
            out.pow(2).mean().backward()
            opt.step()
        with torch.no_grad():
            model.module(x)  # an evaluation: not a bypass
    ddp = next(o for o in w.session.observers if o.name == "ddp")
    expected = next(i + 1 for i, t in enumerate(_SOURCE) if t.rstrip().endswith("# bypasses DDP"))
    assert ddp.unwrapped is not None and ddp.unwrapped.line == expected
    assert ddp.samples[-1]["cause"]["line"] == expected
    assert not ddp._hooks and not model._forward_pre_hooks and not model.module._forward_pre_hooks
