"""watch() over a long run: does its cost per step, the process's memory or what graddoctor holds grow?

A tiny model (Linear 32-64-64-1 MLP with ReLU, Adam, batch 64, synthetic regression
data drawn afresh each step, torch on one thread) trains for `--steps` optimizer steps
(100,000 by default) under one `graddoctor.watch(model, opt)` session. Every `--block`
steps (10,000) the script prints one row:

- watch ms/step: CPU time of the process (`time.process_time`) per watched step over the
  block, so that other jobs on the shared machine do not count;
- plain ms/step: the same for a short plain block (`--plain` steps, 1,000) run right after,
  with the session detached (the same model and optimizer: `watch()` re-attaches after it);
  `ratio` is watch over plain, measured side by side, so a load change shows in both;
- RSS MiB: the process's resident memory (/proc/self/statm), after `gc.collect()`;
- held objects / held items / held tensors: what graddoctor keeps, measured by walking the
  references that start at the session object (gc.get_referents), breadth first. The walk
  counts every object it reaches ("held objects"), the total length of every list, dict,
  set, frozenset, tuple and deque among them ("held items", the figure a per-step append
  moves), and the tensors reached ("held tensors", with their bytes). It does not enter
  what is the user's or the interpreter's, whose size does not depend on graddoctor:
  nn.Module, torch.optim.Optimizer and tensors (counted, not entered), and modules,
  classes, code objects and frames (not counted). Of a function it follows only its
  closure and defaults, never its globals. The models and optimizers are therefore
  counted once each, whatever they hold, and a growth of the counts is graddoctor's own;
- py objects: every object the garbage collector tracks in the process (len(gc.get_objects())),
  a cross-check that catches what is held outside the session (module-level registries).

`--rebuild-every N` builds a new model and optimizer every N steps (a script that trains one
model per fold) under one `graddoctor.watch()` given no model, which then discovers each; "alive
models" and "alive opts" count the models and optimizers built so far that are still alive (weak
references, after gc.collect()): graddoctor must let the dropped ones go, as the script does.

At the end it prints a verdict (not an assertion): per-step cost (the ratio: the watched and the
plain ms/step both move with the load of a shared machine, and are printed for that), RSS and the held
counts of the last block against the second (the first holds the session's start), within a
tolerance, and the findings of the run, which for this healthy run must contain no error or
warning.

`python benchmarks/bench_long_run.py [--steps N] [--block N] [--plain N]`.
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import sys
import time
import types
import weakref
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import graddoctor  # noqa: E402
from graddoctor.finding import Severity  # noqa: E402

_PAGE = os.sysconf("SC_PAGE_SIZE")
_SIZED = (list, dict, set, frozenset, tuple, collections.deque)
_OPAQUE = (nn.Module, torch.optim.Optimizer)  # the user's: counted, never entered
_SKIPPED = (types.ModuleType, type, types.CodeType, types.FrameType)  # the interpreter's: neither


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * _PAGE / 2**20


def held(session, limit: int = 2_000_000, start=None) -> tuple[int, int, int, int]:
    """(objects, container items, tensors, tensor bytes) reachable from the session; see the docstring.
    From `start` (one observer) instead when given, without entering the session."""
    start = session if start is None else start
    seen: set[int] = {id(session), id(start)}
    queue = collections.deque([start])
    objects = items = tensors = nbytes = 0
    while queue and objects < limit:
        obj = queue.popleft()
        objects += 1
        if isinstance(obj, torch.Tensor):
            tensors += 1
            nbytes += obj.numel() * obj.element_size() if obj.layout == torch.strided else 0
            continue
        if isinstance(obj, _OPAQUE):
            continue
        if isinstance(obj, _SIZED):
            items += len(obj)
        if isinstance(obj, types.FunctionType):
            refs = [c.cell_contents for c in (obj.__closure__ or ()) if _filled(c)]
            refs += list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
        else:
            refs = gc.get_referents(obj)
        for ref in refs:
            if isinstance(ref, _SKIPPED) or id(ref) in seen:
                continue
            seen.add(id(ref))
            queue.append(ref)
    return objects, items, tensors, nbytes


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


class Training:
    """The tiny MLP and its Adam; `step()` is one training step, rebuilding both every `rebuild` steps."""

    def __init__(self, rebuild: int = 0, seed: int = 0) -> None:
        torch.manual_seed(seed)
        self.rebuild, self.steps = rebuild, 0
        self.w_true = torch.randn(32, 1)
        self.built: list[weakref.ref] = []
        self.opts: list[weakref.ref] = []
        self.new_model()

    def new_model(self) -> None:
        self.model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.built.append(weakref.ref(self.model))
        self.opts.append(weakref.ref(self.opt))

    def alive(self) -> tuple[int, int]:
        """(models, optimizers) built so far and still alive."""
        return sum(ref() is not None for ref in self.built), sum(ref() is not None for ref in self.opts)

    def step(self) -> None:
        if self.rebuild and self.steps and self.steps % self.rebuild == 0:
            self.new_model()
        self.steps += 1
        x = torch.randn(64, 32)
        y = x @ self.w_true + 0.1 * torch.randn(64, 1)
        self.opt.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.opt.step()


def timed(step, n: int) -> float:
    start = time.process_time()
    for _ in range(n):
        step()
    return (time.process_time() - start) / n * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--block", type=int, default=10_000)
    parser.add_argument("--plain", type=int, default=1_000, help="plain steps after each watched block")
    parser.add_argument("--tolerance", type=float, default=0.10, help="relative change called flat")
    parser.add_argument("--rebuild-every", type=int, default=0, help="a new model and optimizer every N steps")
    args = parser.parse_args(argv if argv is not None else [])  # `make bench` calls main() with no arguments
    torch.set_num_threads(1)

    training = Training(args.rebuild_every)
    step = training.step
    w = graddoctor.watch() if args.rebuild_every else graddoctor.watch(training.model, training.opt)
    rows = []
    header = (f"{'steps':>8} {'watch ms/step':>13} {'plain ms/step':>13} {'ratio':>6} {'RSS MiB':>8} "
              f"{'held objects':>12} {'held items':>10} {'held tensors':>12} {'tensor KiB':>10} {'py objects':>10}"
              f"{' alive models':>13} {'alive opts':>10}")
    rebuilt = f", a new model every {args.rebuild_every} steps" if args.rebuild_every else ""
    print(f"bench_long_run: {args.steps} steps{rebuilt}, blocks of {args.block} (+{args.plain} plain), "
          f"torch {torch.__version__}, "
          f"load {open('/proc/loadavg').read().split()[:3]}", flush=True)
    print(header, flush=True)
    done = 0
    while done < args.steps:
        n = min(args.block, args.steps - done)
        with w:
            watched = timed(step, n)
        done += n
        plain = timed(step, args.plain)
        gc.collect()
        objects, items, tensors, nbytes = held(w.session)
        row = (done, watched, plain, watched / plain, rss_mib(), objects, items, tensors, nbytes / 1024,
               len(gc.get_objects()), *training.alive())
        rows.append(row)
        print(f"{row[0]:>8} {row[1]:>13.3f} {row[2]:>13.3f} {row[3]:>6.2f} {row[4]:>8.1f} {row[5]:>12} {row[6]:>10} "
              f"{row[7]:>12} {row[8]:>10.1f} {row[9]:>10} {row[10]:>12} {row[11]:>10}", flush=True)

    print()
    if len(rows) >= 3:
        first, last = rows[1], rows[-1]  # the second block: the session's start is behind it
        for label, i in (("watch ms/step", 1), ("plain ms/step", 2)):
            a, b = first[i], last[i]
            # both move with the machine's load (a shared machine): the ratio below is the verdict
            print(f"{label:>13}: block 2 {a:,.3f} -> last {b:,.3f} ({(b - a) / a:+.1%}): with the load, see the ratio")
        for label, i in (("cost ratio", 3), ("RSS", 4), ("held objects", 5), ("held items", 6),
                         ("held tensors", 7), ("py objects", 9), ("alive models", 10),
                         ("alive opts", 11)):
            a, b = first[i], last[i]
            change = (b - a) / a if a else (0.0 if b == a else float("inf"))
            # the alive counts are small integers (1 or 2: the current model, and the one held for the
            # report until the next discovery): one more or less is no trend
            small = label.startswith("alive") and abs(b - a) <= 1
            verdict = "flat" if small or abs(change) <= args.tolerance else "GROWS" if change > 0 else "shrinks"
            print(f"{label:>13}: block 2 {a:,.3f} -> last {b:,.3f} ({change:+.1%}): {verdict}")
    else:
        print("fewer than 3 blocks: no verdict on growth (the first block holds the session's start)")

    report = w.report()
    bad = [f for f in report.findings if f.severity >= Severity.WARNING]
    print(f"\nfindings: {len(report.findings)} ({len(bad)} error/warning); steps observed {report.steps_observed}")
    for f in report.findings:
        print(f"  {f.code} {f.severity}: {f.message[:160]}")
    if w.session.internal_errors:
        print(f"internal errors: {len(w.session.internal_errors)}")
        print(w.session.internal_errors[0])
    print("healthy run: " + ("no error/warning finding" if not bad and not w.session.internal_errors
                             else "NOT clean (see above)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
