"""Deep mode (cut provenance) against a plain step and against torch.autograd.detect_anomaly.

Three workloads: GPT-2 built from a config (4 layers, width 256, batch 8x128,
AdamW), a 4-conv CNN (batch 64, 32x32, SGD with momentum), and a
dispatch-bound stack of 24 Linear(64,64)+LayerNorm+GELU blocks (batch 32,
Adam). Variants run interleaved, round after round, in one process; the
table gives the median CPU time per step of each and its ratio to the plain
step.

    PYTHONPATH=src python benchmarks/bench_provenance.py [--rounds N]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time

import torch
from torch import nn


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=8192, n_positions=128)
    model = GPT2LMHeadModel(config)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, config.vocab_size, (8, 128))

    def step():
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return step


def cnn():
    layers, channels = [], 3
    for width in (32, 64, 64, 128):
        layers += [nn.Conv2d(channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU()]
        channels = width
    model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(channels, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,))

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return step


def stack():
    blocks = [nn.Sequential(nn.Linear(64, 64), nn.LayerNorm(64), nn.GELU()) for _ in range(24)]
    model = nn.Sequential(*blocks, nn.Linear(64, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(32, 64), torch.randn(32, 1)

    def step():
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return step


def _deep():
    from graddoctor.observers.provenance import ProvenanceObserver
    from graddoctor.session.session import Session

    return Session([ProvenanceObserver()])


def _anomaly():
    return torch.autograd.detect_anomaly(check_nan=False)


VARIANTS = {"plain": contextlib.nullcontext, "deep": _deep, "detect_anomaly": _anomaly}
WORKLOADS = {"gpt2 (4x256, 8x128, AdamW)": (gpt2, 1), "cnn (4 conv, 64x32x32, SGD)": (cnn, 4),
             "stack (24 x Linear+LN+GELU, Adam)": (stack, 30)}


def measure(make, steps: int, rounds: int) -> dict[str, float]:
    torch.manual_seed(0)
    step = make()
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            step()
        names = list(VARIANTS)
        for round_ in range(rounds):
            # Rotate the order each round so no variant always runs after the same one.
            order = names[round_ % len(names):] + names[: round_ % len(names)]
            for name in order:
                variant = VARIANTS[name]
                with variant():
                    step()  # warm-up inside the variant
                    start = time.process_time()
                    for _ in range(steps):
                        step()
                    times[name].append((time.process_time() - start) / steps)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", default="")
    opts = parser.parse_args(argv or [])
    # One thread and CPU time (process_time): on a shared 2-core machine other processes'
    # load swamps a 10% effect in wall-clock time.
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread, CPU time, median of {opts.rounds} interleaved rounds; ratios to plain")
    print(f"{'workload':36} {'plain ms':>9} {'deep':>7} {'anomaly':>8}")
    for label, (make, steps) in WORKLOADS.items():
        if opts.only and opts.only not in label:
            continue
        t = measure(make, steps, opts.rounds)
        print(
            f"{label:36} {t['plain'] * 1e3:9.2f} {t['deep'] / t['plain']:6.2f}x "
            f"{t['detect_anomaly'] / t['plain']:7.2f}x",
            flush=True,
        )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
