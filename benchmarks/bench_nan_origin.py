"""The escalated deep step (NaN origin) against a deep step and a plain step.

After the first NaN/Inf, one step is recorded deeply with a finiteness check of
every op result. This measures that step's cost on the CNN and the
dispatch-bound stack of bench_provenance.py: variants interleaved, round after
round, in one process; median CPU time per step and the ratio to plain. The
check is re-armed before each step (it switches itself off after a first hit,
and this training is finite), so every op pays it.

    PYTHONPATH=src python benchmarks/bench_nan_origin.py [--rounds N]
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import statistics
import time

import torch


def _workloads():
    path = pathlib.Path(__file__).with_name("bench_provenance.py")
    spec = importlib.util.spec_from_file_location("bench_provenance", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {"cnn (4 conv, 64x32x32, SGD)": (module.cnn, 4), "stack (24 x Linear+LN+GELU, Adam)": (module.stack, 30)}


def _session():
    from graddoctor.observers.provenance import ProvenanceObserver
    from graddoctor.session.session import Session

    observer = ProvenanceObserver()
    return Session([observer]), observer


def measure(make, steps: int, rounds: int) -> dict[str, float]:
    torch.manual_seed(0)
    step = make()
    names = ["plain", "deep", "escalated"]
    times: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(2):
        step()
    for round_ in range(rounds):
        for name in names[round_ % 3:] + names[: round_ % 3]:
            observer = None
            session = None
            if name != "plain":
                session, observer = _session()
                session.attach()
            try:
                step()
                start = time.process_time()
                for _ in range(steps):
                    if name == "escalated":
                        observer.recorder.non_finite.watch = True
                    step()
                times[name].append((time.process_time() - start) / steps)
            finally:
                if session is not None:
                    session.detach()
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    opts = parser.parse_args(argv or [])
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread, CPU time, median of {opts.rounds} interleaved rounds; ratios to plain")
    print(f"{'workload':36} {'plain ms':>9} {'deep':>7} {'escalated':>10}")
    for label, (make, steps) in _workloads().items():
        t = measure(make, steps, opts.rounds)
        print(f"{label:36} {t['plain'] * 1e3:9.2f} {t['deep'] / t['plain']:6.2f}x {t['escalated'] / t['plain']:9.2f}x",
              flush=True)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
