"""graddoctor under DistributedDataParallel at 2, 4 and 8 ranks: step time, and what it sends.

Every configuration starts W processes (torch.multiprocessing spawn, gloo, CPU,
one thread each) that train the same small MLP under DDP on synthetic data.
In each rank, plain DDP steps and steps under watch() run interleaved
(A B B A ...) on the same model: one watch() session, attached for its blocks
only, so its sampled work (graph walks, the GD402 fingerprints at steps 1, 2, 3,
then every tenth) is amortised as in a real run. A figure is the median over
rounds of a block's mean step time on rank 0, wall clock (under DDP a step
waits for the slowest rank, so wall time is what a step costs) and rank 0's
CPU time.

What is sent between ranks, counted, not assumed:

- torch.distributed's Python collectives (all_reduce, all_gather, broadcast,
  gather, scatter, reduce, barrier, the *_object variants...) are wrapped in
  every rank and each call is attributed to graddoctor when a graddoctor frame
  is on the stack, else to the user (the loop here all-reduces its loss once a
  step for logging, as many loops do: it shows the counter sees calls).
  DDP's own gradient all-reduce goes through its C++ reducer, not these
  functions, so it cannot show here; it is counted separately, on a copy of
  the model run a few steps with a DDP communication hook that counts the
  buckets it all-reduces and their bytes (the timed models have no hook).
- graddoctor's end-of-run exchange (runner/gather.py: each rank's results
  to rank 0 through a key-value store, rank 0's verdict back, a last barrier)
  is run for real at the end, over a TCPStore as under torchrun; the store
  client is wrapped to count its requests and the bytes they carry.

Then the end-of-run exchange alone at many ranks (`--simulate 1000`): one
process plays every rank in turn over a real TCPStore (one client, its server
in the same process), each rank's payload as large as a real one (3 findings,
20 GD402 samples). Run one after the other, the ranks' requests cost their sum:
the store's own work, without the network and without concurrency.

`python benchmarks/bench_ranks.py [--ranks 2 4 8] [--rounds N] [--steps N] [--simulate W [W ...]]`
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))  # spawned ranks import this module by name

COLLECTIVES = (
    "all_reduce", "all_gather", "all_gather_into_tensor", "all_gather_object", "all_to_all", "all_to_all_single",
    "broadcast", "broadcast_object_list", "gather", "gather_object", "scatter", "scatter_object_list", "reduce",
    "reduce_scatter", "reduce_scatter_tensor", "barrier", "monitored_barrier", "send", "recv", "isend", "irecv",
)
WIDTH, BATCH = 256, 32


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _nbytes(name: str, args: tuple, kwargs: dict) -> int:
    """Tensor bytes a collective is handed (lists of tensors summed); for the *_object ones, the pickled objects."""
    import pickle

    import torch

    values = list(args) + list(kwargs.values())
    if "object" in name:
        objects = [v for v in values if isinstance(v, (list, tuple, dict, str, bytes)) or hasattr(v, "__dict__")]
        return sum(len(pickle.dumps(v)) for v in objects if not isinstance(v, torch.distributed.ProcessGroup))

    def size(v) -> int:
        if isinstance(v, torch.Tensor):
            return v.numel() * v.element_size()
        if isinstance(v, (list, tuple)):
            return sum(size(x) for x in v)
        return 0

    return sum(size(v) for v in values)


class Counter:
    """Calls and bytes, by who made them ("graddoctor" or "user") and by function."""

    def __init__(self) -> None:
        self.calls: dict[str, dict[str, int]] = {"graddoctor": {}, "user": {}}
        self.bytes = {"graddoctor": 0, "user": 0}

    def add(self, who: str, name: str, nbytes: int) -> None:
        self.calls[who][name] = self.calls[who].get(name, 0) + 1
        self.bytes[who] += nbytes

    def snapshot(self) -> tuple[int, int, int, int]:
        return (sum(self.calls["graddoctor"].values()), self.bytes["graddoctor"],
                sum(self.calls["user"].values()), self.bytes["user"])


def _from_graddoctor() -> bool:
    frame = sys._getframe(2)
    marker = os.sep + "graddoctor" + os.sep
    while frame is not None:
        if marker in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


def instrument_collectives(counter: Counter) -> None:
    import torch.distributed as dist

    for name in COLLECTIVES:
        original = getattr(dist, name, None)
        if original is None:
            continue

        def wrapped(*args, __original=original, __name=name, **kwargs):
            counter.add("graddoctor" if _from_graddoctor() else "user", __name, _nbytes(__name, args, kwargs))
            return __original(*args, **kwargs)

        setattr(dist, name, wrapped)


class CountingStore:
    """A store client that counts its requests and the bytes they carry (keys and values)."""

    def __init__(self, store) -> None:
        self._store = store
        self.requests = 0
        self.sent = 0
        self.received = 0

    def set(self, key, value):
        self.requests += 1
        self.sent += len(key) + len(value.encode() if isinstance(value, str) else value)
        return self._store.set(key, value)

    def get(self, key):
        self.requests += 1
        value = self._store.get(key)
        self.sent += len(key)
        self.received += len(value)
        return value

    def wait(self, keys, *args):
        self.requests += 1
        self.sent += sum(len(k) for k in keys)
        return self._store.wait(keys, *args)

    def multi_get(self, keys):
        self.requests += 1
        values = self._store.multi_get(keys)
        self.sent += sum(len(k) for k in keys)
        self.received += sum(len(v) for v in values)
        return values

    def add(self, key, amount):
        self.requests += 1
        self.sent += len(key) + 8
        return self._store.add(key, amount)

    def check(self, keys):
        self.requests += 1
        self.sent += sum(len(k) for k in keys)
        return self._store.check(keys)

    def __getattr__(self, name):  # anything else graddoctor would call is not counted: fail loudly instead
        raise AttributeError(f"CountingStore does not count {name}(): add it")


def build(seed: int = 0):
    import torch
    from torch import nn

    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(64, WIDTH), nn.ReLU(), nn.Linear(WIDTH, WIDTH), nn.ReLU(), nn.Linear(WIDTH, 10))


def ddp_traffic(rank: int, steps: int = 3) -> tuple[float, float]:
    """DDP's own gradient all-reduce per step, counted by a communication hook on a copy of the model."""
    import torch
    import torch.distributed as dist
    from torch.nn import functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP

    counted = {"calls": 0, "bytes": 0}

    def hook(state, bucket):
        buffer = bucket.buffer()
        counted["calls"] += 1
        counted["bytes"] += buffer.numel() * buffer.element_size()
        work = dist.distributed_c10d._get_default_group().allreduce([buffer.div_(dist.get_world_size())])
        return work.get_future().then(lambda fut: fut.value()[0])

    model = DDP(build())
    model.register_comm_hook(None, hook)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(rank)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(torch.randn(BATCH, 64, generator=g)), torch.randint(0, 10, (BATCH,), generator=g)).backward()
        opt.step()
    return counted["calls"] / steps, counted["bytes"] / steps


def worker(rank: int, world: int, port: int, rounds: int, steps: int, out_dir: str) -> None:
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch

    torch.set_num_threads(1)
    import torch.distributed as dist
    from torch.nn import functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP

    from graddoctor import watch
    from graddoctor.distributed import channel as channel_module
    from graddoctor.distributed.context import DistContext
    from graddoctor.runner.gather import gather
    from graddoctor.runner.gather import payload as gather_payload

    store = dist.TCPStore("127.0.0.1", port, world, is_master=rank == 0, wait_for_workers=True)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=world)
    counter = Counter()
    instrument_collectives(counter)

    ddp_calls, ddp_bytes = ddp_traffic(rank)
    model = DDP(build())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(1000 + rank)  # each rank its own data
    data = [(torch.randn(BATCH, 64, generator=g), torch.randint(0, 10, (BATCH,), generator=g)) for _ in range(8)]
    state = {"i": 0}

    def step():
        x, y = data[state["i"] % len(data)]
        state["i"] += 1
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        logged = loss.detach().clone()
        dist.all_reduce(logged)  # the user's own: the mean loss for logging

    w = watch(model, opt)

    def block(watched: bool) -> tuple[float, float, tuple]:
        dist.barrier()
        before = counter.snapshot()
        if watched:
            w.attach()
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            for _ in range(steps):
                step()
        finally:
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            if watched:
                w.detach()
        after = counter.snapshot()
        return wall / steps * 1e3, cpu / steps * 1e3, tuple(b - a for a, b in zip(before, after))

    for _ in range(3):  # warm-up, both ways
        step()
    block(True)
    times = {"plain": [], "watch": []}
    traffic = {"plain": [0, 0, 0, 0], "watch": [0, 0, 0, 0]}
    for r in range(rounds):
        for watched in ((False, True) if r % 2 == 0 else (True, False)):
            name = "watch" if watched else "plain"
            wall, cpu, sent = block(watched)
            times[name].append((wall, cpu))
            traffic[name] = [a + b for a, b in zip(traffic[name], sent)]

    from graddoctor.observers.ddp import fingerprint

    sample_ms = []
    for _ in range(20):  # one GD402 sample: every DDP parameter fingerprinted
        start = time.perf_counter()
        {name: fingerprint(p) for name, p in model.module.named_parameters()}
        sample_ms.append((time.perf_counter() - start) * 1e3)

    # graddoctor's end of run, for real: over a client of the launch's store, as torchrun's agent store
    stores: list[CountingStore] = []
    original_init = channel_module.Channel.__init__

    def counting_init(self, ctx, timeout_s):
        original_init(self, ctx, timeout_s)
        self.store = CountingStore(self.store)
        stores.append(self.store)

    channel_module.Channel.__init__ = counting_init
    report = w.report()
    samples = sum(len(o.samples) for o in w.session.observers if hasattr(o, "samples"))
    dist.barrier()
    start = time.perf_counter()
    gathered = gather(DistContext(rank, world, f"bench-{port}", ("127.0.0.1", port)), report, w.session, 0, "never")
    merged = time.perf_counter() - start
    gathered.done()
    ended = time.perf_counter() - start
    channel_module.Channel.__init__ = original_init
    client = stores[0]
    payload = len(json.dumps(gather_payload(DistContext(rank, world, "x", None), report, w.session, 0)))
    result = {
        "rank": rank, "world": world, "steps": rounds * steps,
        "plain": times["plain"], "watch": times["watch"], "traffic": traffic,
        "ddp_calls": ddp_calls, "ddp_bytes": ddp_bytes,
        "store_requests": client.requests, "store_sent": client.sent, "store_received": client.received,
        "payload_bytes": payload, "samples": samples, "merge_s": merged, "end_s": ended,
        "findings": [f.code for f in gathered.report.findings], "sample_ms": statistics.median(sample_ms),
        "params": sum(p.numel() for p in model.parameters()), "tensors": len(list(model.parameters())),
    }
    Path(out_dir, f"rank{rank}.json").write_text(json.dumps(result))
    dist.destroy_process_group()


def run_world(world: int, rounds: int, steps: int) -> list[dict]:
    import importlib

    import torch.multiprocessing as mp

    # The ranks unpickle `worker` by module name: take it from the importable module, also when this
    # file was loaded by path (benchmarks/run.py) or run as __main__.
    target = importlib.import_module("bench_ranks").worker
    with tempfile.TemporaryDirectory() as out:
        mp.spawn(target, args=(world, _free_port(), rounds, steps, out), nprocs=world, join=True)
        return [json.loads(Path(out, f"rank{r}.json").read_text()) for r in range(world)]


def summarise(results: list[dict]) -> dict:
    zero = results[0]
    med = {k: (statistics.median(w for w, _ in zero[k]), statistics.median(c for _, c in zero[k])) for k in ("plain", "watch")}
    n = zero["steps"]
    others = [r for r in results if r["rank"] != 0]
    return {
        "world": zero["world"],
        "plain_ms": med["plain"][0], "watch_ms": med["watch"][0], "ratio": med["watch"][0] / med["plain"][0],
        "plain_cpu": med["plain"][1], "watch_cpu": med["watch"][1], "cpu_ratio": med["watch"][1] / med["plain"][1],
        "gd_calls": sum(r["traffic"]["watch"][0] for r in results) / n / len(results),
        "gd_bytes": sum(r["traffic"]["watch"][1] for r in results) / n / len(results),
        "user_calls": zero["traffic"]["plain"][2] / n, "user_bytes": zero["traffic"]["plain"][3] / n,
        "user_calls_watch": zero["traffic"]["watch"][2] / n,
        "ddp_calls": zero["ddp_calls"], "ddp_bytes": zero["ddp_bytes"],
        "req0": zero["store_requests"], "recv0": zero["store_received"],
        "req_other": max(r["store_requests"] for r in others), "payload": max(r["payload_bytes"] for r in results),
        "sample_ms": zero["sample_ms"], "merge_ms": zero["merge_s"] * 1e3, "end_ms": zero["end_s"] * 1e3, "samples": zero["samples"],
        "params": zero["params"], "tensors": zero["tensors"], "findings": zero["findings"],
    }


def simulate(world: int) -> dict:
    """Every rank's end-of-run store requests, played in turn by this process, timed by phase."""
    import copy

    import torch.distributed as dist

    from graddoctor.distributed.channel import Channel
    from graddoctor.distributed.context import DistContext
    from graddoctor.rules.frameworks.gd402_ddp_replicas_diverged.judge import compact
    from graddoctor.rules import make

    port = _free_port()
    server = dist.TCPStore("127.0.0.1", port, 1, is_master=True, wait_for_workers=False)
    zero = Channel(DistContext(0, world, f"sim-{port}", ("127.0.0.1", port)), timeout_s=30)
    counting = CountingStore(zero.store)
    zero.store = counting
    ranks = [zero]
    for rank in range(1, world):
        other = copy.copy(zero)
        other.ctx = DistContext(rank, world, zero.ctx.run_key, zero.ctx.agent_store)
        ranks.append(other)
    names = [f"model.layers.{i // 9}.{part}.weight" for i, part in enumerate(["attn.q", "attn.k", "attn.v", "attn.o",
             "mlp.up", "mlp.gate", "mlp.down", "norm1", "norm2"] * 32)]
    samples = [compact({"step": s, "file": "train.py", "line": 57, "prints": {n: 10**15 + i + s for i, n in
                        enumerate(names)}}) for s in [1, 2, 3] + list(range(11, 180, 10))[:17]]
    findings = [make(code, "x" * 300, file="train.py", line=40, subjects=names[:4]).to_json()
                for code in ("GD104", "GD401", "GD303")]
    phases: dict[str, float] = {}
    requests: dict[str, int] = {}

    def phase(name, action):
        before, start = counting.requests, time.perf_counter()
        action()
        phases[name] = time.perf_counter() - start
        requests[name] = counting.requests - before

    payloads = [json.dumps({"rank": r, "findings": findings, "status": "completed", "exception": None,
                            "exit_code": 1, "samples": samples}) for r in range(world)]
    phase("every rank publishes", lambda: [c.store.set(c._key(f"rank/{c.ctx.rank}"), p) for c, p in zip(ranks, payloads)])
    got = {}
    phase("rank 0 collects", lambda: got.update(zero.collect(30)))
    assert len(got) == world
    deadline = time.monotonic() + 30
    phase("rank 0 asks, the others read it", lambda: (zero.ask({}), [c.asked(deadline) for c in ranks[1:]]))
    present = list(range(world))
    phase("rank 0 announces, the others read the verdict",
          lambda: (zero.announce(1, present), [c.verdict(deadline) for c in ranks[1:]]))
    phase("exit barrier", lambda: ([c.arrive("exit", present) for c in ranks], [c.await_all("exit", 30) for c in ranks]))
    del server
    return {"world": world, "phases": phases, "requests": requests, "payload": len(payloads[1]),
            "received0": counting.received, "total_s": sum(phases.values()), "total_requests": counting.requests}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="*", default=[2, 4, 8])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--simulate", type=int, nargs="*", default=[1000])
    args = parser.parse_args(argv if argv is not None else [])
    rows = []
    for world in args.ranks:
        start = time.perf_counter()
        rows.append(summarise(run_world(world, args.rounds, args.steps)))
        print(f"  {world} ranks measured in {time.perf_counter() - start:.1f} s", flush=True)
    print_rows(rows, args)
    for world in args.simulate:
        print_simulated(simulate(world))


def print_simulated(sim: dict) -> None:
    print(f"\nEnd-of-run exchange played for {sim['world']:,} ranks in one process over a real TCPStore "
          f"(payload {sim['payload']:,} B per rank: 3 findings, 20 GD402 samples)")
    print("| phase | store requests | seconds |")
    print("| --- | ---: | ---: |")
    for name, seconds in sim["phases"].items():
        print(f"| {name} | {sim['requests'][name]:,} | {seconds:.3f} |")
    print(f"| all | {sim['total_requests']:,} | {sim['total_s']:.3f} |")
    print(f"bytes read from the store by all ranks together: {sim['received0']:,}")


def print_rows(rows: list[dict], args) -> None:
    if not rows:
        return
    first = rows[0]
    print(f"\nDDP, gloo, CPU, 1 thread per rank; MLP 64-{WIDTH}-{WIDTH}-10 ({first['params']:,} parameters in "
          f"{first['tensors']} tensors), batch {BATCH}; {args.rounds} rounds x {args.steps} steps per variant, "
          f"interleaved; medians on rank 0; load average {Path('/proc/loadavg').read_text().split()[:3]}")
    print("\nStep time (rank 0)")
    print("| ranks | plain ms/step | watch() ms/step | ratio (wall) | plain CPU ms | watch() CPU ms | ratio (CPU) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['world']} | {r['plain_ms']:.2f} | {r['watch_ms']:.2f} | {r['ratio']:.2f}x | "
              f"{r['plain_cpu']:.2f} | {r['watch_cpu']:.2f} | {r['cpu_ratio']:.2f}x |")
    print("\nOne GD402 sample (every DDP parameter fingerprinted, at optimizer steps 1, 2, 3, then 1 in 10 or rarer)")
    print("| ranks | ms per sample | share of a plain step |")
    print("| ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['world']} | {r['sample_ms']:.3f} | {r['sample_ms'] / r['plain_ms']:.1%} |")
    print("\nCommunication per training step (per rank)")
    print("| ranks | DDP gradient all-reduce (comm hook) | graddoctor collectives | user collectives (plain / watched) |")
    print("| ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['world']} | {r['ddp_calls']:.0f} call, {r['ddp_bytes']:,.0f} B | {r['gd_calls']:.0f} calls, "
              f"{r['gd_bytes']:,.0f} B | {r['user_calls']:.0f} / {r['user_calls_watch']:.0f} call, {r['user_bytes']:,.0f} B |")
    print("\nEnd of run: graddoctor's one exchange through the store (runner/gather.py)")
    print("| ranks | GD402 samples | payload per rank | rank 0: store requests, bytes received | other ranks: requests | rank 0 merge ms | rank 0 merge + leave ms |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['world']} | {r['samples']} | {r['payload']:,} B | {r['req0']}, {r['recv0']:,} B | {r['req_other']} | "
              f"{r['merge_ms']:.1f} | {r['end_ms']:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
