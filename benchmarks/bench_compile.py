"""Cost of watch() on a compiled model: ms per step of a torch.compile'd GPT-2, plain vs watched.

Both variants run the same compiled model (CPU inductor): graddoctor takes its
modes and hooks off around compiled code (session/compiled.py), so the watched
steps hit the graphs the plain steps compiled. Also printed: dynamo's graph
and graph-break counts after each variant, which must not move.
GPT-2 from a config (2 layers, width 128, batch 8 x 64 tokens, AdamW).
Interleaved blocks, median of block means, as in bench_watch.py.
`python benchmarks/bench_compile.py [--rounds N] [--steps N] [--threads N]`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from graddoctor import watch  # noqa: E402


def compiled_gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=2, n_embd=128, n_head=4, n_positions=64, vocab_size=4096)
    model = GPT2LMHeadModel(cfg)
    model.compile()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    ids = torch.randint(0, cfg.vocab_size, (8, 64))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()

    return model, opt, step


def _graphs() -> tuple[int, int]:
    from torch._dynamo.utils import counters

    return counters["stats"]["unique_graphs"], sum(counters["graph_break"].values())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv if argv is not None else [])
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model, opt, step = compiled_gpt2()
    start = time.perf_counter()
    for _ in range(3):  # compile forward and backward, outside the timing
        step()
    compile_s = time.perf_counter() - start
    before = _graphs()
    watched = watch(model, opt)
    times: dict[str, list[float]] = {"plain": [], "watch()": []}
    for r in range(args.rounds):
        for name in (("plain", "watch()") if r % 2 == 0 else ("watch()", "plain")):
            if name == "watch()":
                watched.attach()
            try:
                t0 = time.perf_counter()
                for _ in range(args.steps):
                    step()
                times[name].append((time.perf_counter() - t0) / args.steps * 1000)
            finally:
                if name == "watch()":
                    watched.detach()
    after = _graphs()
    plain = statistics.median(times["plain"])
    print(f"compiled GPT-2 (2x128, 8x64, AdamW, CPU inductor; compile {compile_s:.0f} s)")
    print(f"{'variant':<10} {'ms/step':>9} {'ratio':>7}")
    for name, values in times.items():
        ms = statistics.median(values)
        print(f"{name:<10} {ms:>9.1f} {ms / plain:>6.2f}x")
    print(f"dynamo graphs / graph breaks: {before[0]} / {before[1]} after compiling, "
          f"{after[0]} / {after[1]} after the watched steps")
    findings = watched.report().codes
    print(f"findings under watch(): {findings or 'none'}")


if __name__ == "__main__":
    main(sys.argv[1:])
