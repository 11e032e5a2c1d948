"""Cost of watch(): ms per training step and the ratio to a plain step, side by side.

Variants: plain, watch(), watch(deep=True), torch.autograd.detect_anomaly().
Workloads: GPT-2 from a config (4 layers, width 256, batch 8 x 128 tokens,
AdamW); a 4-conv CNN (batch 64, 32x32, SGD with momentum); 24 blocks of
Linear(64, 64) + LayerNorm + GELU (batch 32, Adam), dispatch-bound.

The variants run interleaved (A B C D D C B A ...) and each figure is the
median over rounds of a short block's mean step time, because this machine is shared
and noisy. Each watch variant keeps one session across rounds (attached for its
blocks only), so sampled work (graph walks, GD207 windows) is amortised as in a
real run. `python benchmarks/bench_watch.py [--rounds N] [--steps N] [--only NAME] [--threads N]`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from graddoctor import watch  # noqa: E402


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=4, n_embd=256, n_head=4, n_positions=128, vocab_size=50257)
    model = GPT2LMHeadModel(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    ids = torch.randint(0, cfg.vocab_size, (8, 128))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()

    return model, opt, step


def cnn():
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 10),
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    return model, opt, step


def mlp24():
    blocks = []
    for _ in range(24):
        blocks += [nn.Linear(64, 64), nn.LayerNorm(64), nn.GELU()]
    model = nn.Sequential(*blocks)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(32, 64), torch.randn(32, 64)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()

    return model, opt, step


# (builder, steps per timed block, rounds): blocks short and many, so that load
# changes on a shared machine hit every variant alike.
WORKLOADS = {"gpt2": (gpt2, 1, 15), "cnn": (cnn, 2, 15), "mlp24": (mlp24, 10, 25)}
VARIANTS = ("plain", "watch()", "watch(deep=True)", "detect_anomaly()")


def _block(step, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - start) / n * 1e3


def measure(name: str, rounds: int | None, steps: int | None) -> dict[str, float]:
    torch.manual_seed(0)
    make, default_steps, default_rounds = WORKLOADS[name]
    n, rounds = steps or default_steps, rounds or default_rounds
    model, opt, step = make()
    watches = {"watch()": watch(model, opt), "watch(deep=True)": watch(model, opt, deep=True)}
    for _ in range(2):
        step()
    for w in watches.values():
        with w:
            step()  # not timed: the first steps walk the graph and discover the model
    times: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for r in range(rounds):
        order = VARIANTS if r % 2 == 0 else VARIANTS[::-1]  # ABBA: no variant always runs first
        for variant in order:
            if variant == "plain":
                times[variant].append(_block(step, n))
            elif variant == "detect_anomaly()":
                with torch.autograd.detect_anomaly(check_nan=True):
                    times[variant].append(_block(step, n))
            else:
                with watches[variant]:
                    times[variant].append(_block(step, n))
    for w in watches.values():
        assert not w.session.internal_errors, w.session.internal_errors
    return {v: statistics.median(t) for v, t in times.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--only", action="append")
    # One thread: on a shared 2-core machine, two spinning OpenMP threads per op make
    # tiny ops wait milliseconds for a core, and the noise hides everything else.
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv if argv is not None else [])
    torch.set_num_threads(args.threads)
    import warnings

    warnings.filterwarnings("ignore")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s); ms per step: median over interleaved rounds")
    header = f"{'workload':<8}" + "".join(f"{v:>26}" for v in VARIANTS)
    print(header)
    for name in args.only or list(WORKLOADS):
        result = measure(name, args.rounds, args.steps)
        plain = result["plain"]
        cells = "".join(f"{f'{result[v]:8.2f} ms {result[v] / plain:6.3f}x':>26}" for v in VARIANTS)
        print(f"{name:<8}{cells}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
