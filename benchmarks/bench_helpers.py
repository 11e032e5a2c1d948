"""Cost of the helpers against the hand-written loop they replace, side by side in one process.

safe_backward and train_one_epoch add a gradient-norm computation and a
finiteness check per step (each a device sync); this measures what that costs
on a small MLP, where per-step overhead shows the most. Variants alternate in
rounds and the median per-step time of each is reported, with its ratio to the
hand-written loop.
"""

from __future__ import annotations

import statistics
import time

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import safe_backward, train_one_epoch

STEPS = 60
ROUNDS = 5
ACCUMULATE = 2
CLIP = 1.0


def _setup(width: int):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 8))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = [(torch.randn(32, 64), torch.randn(32, 8)) for _ in range(STEPS)]
    return model, opt, data


def hand_loop(width: int) -> float:
    model, opt, data = _setup(width)
    start = time.perf_counter()
    for i, (x, y) in enumerate(data):
        loss = F.mse_loss(model(x), y)
        (loss / ACCUMULATE).backward()
        if (i + 1) % ACCUMULATE == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
            opt.step()
            opt.zero_grad()
    return (time.perf_counter() - start) / STEPS


def with_safe_backward(width: int) -> float:
    model, opt, data = _setup(width)
    start = time.perf_counter()
    for x, y in data:
        safe_backward(F.mse_loss(model(x), y), opt, clip_norm=CLIP, accumulate=ACCUMULATE)
    return (time.perf_counter() - start) / STEPS


def with_train_one_epoch(width: int) -> float:
    model, opt, data = _setup(width)
    start = time.perf_counter()
    train_one_epoch(model, data, F.mse_loss, opt, accumulate=ACCUMULATE, clip_norm=CLIP)
    return (time.perf_counter() - start) / STEPS


def main() -> None:
    torch.set_num_threads(1)
    variants = {"hand-written loop": hand_loop, "safe_backward": with_safe_backward,
                "train_one_epoch": with_train_one_epoch}
    print(f"per-batch time, median of {ROUNDS} rounds of {STEPS} batches (accumulate={ACCUMULATE}, clip), 1 thread")
    print(f"{'MLP width':>10}  {'variant':<18} {'ms/batch':>9}  {'ratio':>6}")
    for width in (64, 512):
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(ROUNDS):
            for name, run in variants.items():
                times[name].append(run(width))
        base = statistics.median(times["hand-written loop"])
        for name, values in times.items():
            median = statistics.median(values)
            print(f"{width:>10}  {name:<18} {median * 1e3:>9.3f}  {median / base:>6.2f}")


if __name__ == "__main__":
    main()
