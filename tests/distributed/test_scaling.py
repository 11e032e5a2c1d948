"""What the cross-rank checks cost as ranks and steps grow: store requests per rank, GD402's samples per run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch.distributed as dist

from graddoctor.distributed.channel import Channel
from graddoctor.distributed.context import DistContext

ROOT = Path(__file__).resolve().parents[2]


class Counting:
    """The real store, with its requests counted."""

    def __init__(self, store):
        self.store, self.requests = store, 0

    def __getattr__(self, name):
        method = getattr(self.store, name)

        def call(*args, **kwargs):
            self.requests += 1
            return method(*args, **kwargs)

        return call


def channels(tmp_path, world: int, first: int | None = None) -> list[Channel]:
    out = []
    for rank in range(world if first is None else first):
        channel = Channel(DistContext(rank, world, f"{tmp_path}/{world}", None), timeout_s=5)
        channel.store = Counting(channel.store)
        out.append(channel)
    return out


def test_the_exit_barrier_costs_each_rank_the_same_few_store_requests_at_any_world_size(tmp_path):
    for world in (4, 64):
        ranks = channels(tmp_path, world)
        present = list(range(world))
        for channel in ranks:
            channel.arrive("exit", present)
        assert all(channel.await_all("exit", 5) for channel in ranks)
        # add, and the last one's set, then one wait: not one wait per peer (world_size requests each)
        assert max(channel.store.requests for channel in ranks) <= 3, [c.store.requests for c in ranks]


def test_the_exit_barrier_opens_only_when_every_present_rank_arrived_and_gives_up_in_time(tmp_path):
    ranks = channels(tmp_path, 4)
    for channel in ranks[:3]:
        channel.arrive("exit", [0, 1, 2, 3])
    start = time.monotonic()
    assert ranks[0].await_all("exit", 0.5) is False  # rank 3 never came
    assert time.monotonic() - start < 3
    ranks[3].arrive("exit", [0, 1, 2, 3])
    assert ranks[0].await_all("exit", 5) is True


def test_rank_0_collects_everyone_in_two_requests_and_the_answers_it_has_when_some_never_come(tmp_path):
    ranks = channels(tmp_path, 8)
    for channel in ranks:
        channel.publish({"rank": channel.ctx.rank})
    before = ranks[0].store.requests
    assert sorted(ranks[0].collect(5)) == list(range(8))
    assert ranks[0].store.requests - before == 2  # one wait on every key, one read of every value

    ranks = channels(tmp_path / "missing", 4)
    for channel in (ranks[0], ranks[1], ranks[3]):
        channel.publish({"rank": channel.ctx.rank, "seen": channel.ctx.rank * 10})
    start = time.monotonic()
    answers = ranks[0].collect(0.5)
    assert time.monotonic() - start < 3
    assert answers == {0: {"rank": 0, "seen": 0}, 1: {"rank": 1, "seen": 10}, 3: {"rank": 3, "seen": 30}}


LONG_RUN = """
import json, sys
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

import graddoctor
from graddoctor.observers.ddp import DDPObserver

torch.set_num_threads(1)
dist.init_process_group("gloo", init_method="file://" + sys.argv[1], rank=0, world_size=1)
model = DDP(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(8, 4), torch.randn(8, 1)
with graddoctor.watch(model, opt) as w:
    for _ in range(STEPS):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
(ddp,) = [o for o in w.observers if isinstance(o, DDPObserver)]
print(json.dumps([s["step"] for s in ddp.samples]))
dist.destroy_process_group()
"""


@pytest.mark.slow
def test_gd402_samples_stay_bounded_and_span_the_whole_run(tmp_path):
    """A real DDP model (one rank) trained 600 steps: at most 20 samples, from step 1 to the last hundred."""
    (tmp_path / "long.py").write_text(textwrap.dedent(LONG_RUN).replace("STEPS", "600"))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "long.py", str(tmp_path / "pg")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    steps = json.loads(proc.stdout.splitlines()[-1])
    assert len(steps) <= 20 and steps[:3] == [1, 2, 3], steps
    assert steps == sorted(set(steps))
    assert steps[-1] > 600 - 80, steps  # the run's end is still checked (it used to stop at step 171)
    gaps = {b - a for a, b in zip(steps[3:], steps[4:])}
    assert len(gaps) == 1 and gaps.pop() in (40, 80), steps  # one interval, doubled from 10 as the run grew


PEAK = """
import resource, torch
from graddoctor.observers.ddp import fingerprint

torch.set_num_threads(1)
t = torch.randn(50_000_000)  # 200 MB, a large embedding table
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
fingerprint(t)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def test_a_fingerprint_of_a_large_parameter_needs_no_copy_of_it_in_int64():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-c", PEAK], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    grown_mb = int(proc.stdout.split()[-1])
    assert grown_mb < 200, grown_mb  # a whole int64 copy would be 400 MB; a chunk's is 128 MB


def test_a_fingerprint_by_chunks_is_exact_across_chunk_boundaries(monkeypatch):
    import torch

    from graddoctor.observers import ddp

    t = torch.randn(10_001)
    exact = sum(int(v) for v in t.view(torch.int32).tolist())
    monkeypatch.setattr(ddp, "FINGERPRINT_CHUNK", 1000)
    assert ddp.fingerprint(t) == exact
    changed = t.clone()
    changed[9_999] = torch.nextafter(changed[9_999], torch.tensor(float("inf")))
    assert ddp.fingerprint(changed) != exact


def test_the_verdict_every_rank_reads_stays_small_at_any_world_size(tmp_path):
    ranks = channels(tmp_path, 1000, first=2)  # rank 0 and rank 1 of 1,000
    present = [r for r in range(1000) if r != 7]
    ranks[0].announce(1, present)
    assert ranks[1].verdict(time.monotonic() + 5) == (1, present)
    assert len(ranks[1].store.store.get(ranks[1]._key("verdict"))) < 100  # not a list of 999 ranks
