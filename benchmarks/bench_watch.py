"""Cost of watch(): ms per training step and the ratio to a plain step, side by side.

Variants: plain, watch() (every check, the loss/data checks GD501-GD505 included),
watch() without the loss/data observer (their own cost is the ratio of the two),
watch() with the iteration fingerprint off (session/rhythm.py: every observer sees every iteration),
watch(deep=True), torch.autograd.detect_anomaly(). Workloads: GPT-2 from a config
(4 layers, width 256, batch 8 x 128 tokens, AdamW); a 4-conv CNN (batch 64,
32x32, SGD with momentum); 24 blocks of Linear(64, 64) + LayerNorm + GELU (batch
32, Adam), dispatch-bound.

Two measurements per workload:
Times are CPU time of the process on CPU (torch pinned to one thread), so that
other jobs on a shared machine do not count, and wall time on CUDA.

- steady state: the variants run interleaved (A B C D E E D C B A ...) and each
  figure is the median over rounds of a short block's mean step time. Each watch
  variant keeps one session across rounds (attached for its blocks only, after its
  first steps), so sampled work (graph walks, GD207 windows) is amortised as in a
  real run;
- session start: a fresh watch() (made, attached, and its first 4 steps) against
  4 plain steps, interleaved, median over rounds; and the same over a fresh session's
  first 100 steps (`FIRST_STEPS`; not for GPT-2 and the CNN unless `--first-steps` names them).

One table: a row per workload, its steady-state ratios, then its session-start and first-100 ratios.

Runs on CPU, and also on CUDA when a GPU is present (`--device cuda` for that
only): there each block ends with `torch.cuda.synchronize()`, so a host sync
that watch() would add shows as lost overlap.
`python benchmarks/bench_watch.py [--rounds N] [--steps N] [--only NAME] [--threads N] [--device D] [--no-fit]`,
or `--observers NAME` for what each observer costs per step on one workload, or `--calls NAME`
for the Python calls into graddoctor per steady step (a count the machine's load does not move),
`--start-calls NAME` the same over a session's start (watch(), attach, first 4 steps, detach).

Workloads also include the 3-layer MLP (Linear 32-64-64-1, batch 64, Adam), the
smallest real step; after the table, a fixed-cost line fits the extra µs per step
under watch() over stacks of 3, 12 and 48 layers: intercept = fixed cost per step,
slope = cost per module.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from graddoctor import watch  # noqa: E402


def _training(model: nn.Module, opt: torch.optim.Optimizer, loss_of):
    """(model, optimizer, one plain training step computing `loss_of()`)."""

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_of()
        loss.backward()
        opt.step()

    return model, opt, step


def gpt2(device="cpu"):
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=4, n_embd=256, n_head=4, n_positions=128, vocab_size=50257)
    model = GPT2LMHeadModel(cfg).to(device)
    ids = torch.randint(0, cfg.vocab_size, (8, 128), device=device)
    return _training(model, torch.optim.AdamW(model.parameters(), lr=3e-4),
                     lambda: model(input_ids=ids, labels=ids).loss)


def cnn(device="cpu"):
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 10),
    ).to(device)
    x, y = torch.randn(64, 3, 32, 32, device=device), torch.randint(0, 10, (64,), device=device)
    return _training(model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9),
                     lambda: F.cross_entropy(model(x), y))


def mlp24(device="cpu"):
    blocks = []
    for _ in range(24):
        blocks += [nn.Linear(64, 64), nn.LayerNorm(64), nn.GELU()]
    model = nn.Sequential(*blocks).to(device)
    x, y = torch.randn(32, 64, device=device), torch.randn(32, 64, device=device)
    return _training(model, torch.optim.Adam(model.parameters(), lr=1e-3), lambda: F.mse_loss(model(x), y))


def mlp3(device="cpu"):
    """The smallest real step: Linear 32-64-64-1 with ReLU, batch 64, Adam. Its plain step is a
    fraction of a millisecond, so what graddoctor costs per step shows undiluted."""
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
    x, y = torch.randn(64, 32, device=device), torch.randn(64, 1, device=device)
    return _training(model, torch.optim.Adam(model.parameters(), lr=1e-3), lambda: F.mse_loss(model(x), y))


def stack_of(layers: int):
    """`layers` x (Linear(32, 32) + ReLU), batch 16, SGD: models that differ only in module count,
    for the fixed-cost fit."""

    def make(device="cpu"):
        blocks = []
        for _ in range(layers):
            blocks += [nn.Linear(32, 32), nn.ReLU()]
        model = nn.Sequential(*blocks).to(device)
        x, y = torch.randn(16, 32, device=device), torch.randn(16, 32, device=device)
        return _training(model, torch.optim.SGD(model.parameters(), lr=1e-3), lambda: F.mse_loss(model(x), y))

    return make


# (builder, steps per timed block, rounds): blocks short and many, so that load
# changes on a shared machine hit every variant alike.
WORKLOADS = {"gpt2": (gpt2, 1, 11), "cnn": (cnn, 2, 15), "mlp24": (mlp24, 10, 25), "mlp3": (mlp3, 40, 25)}
FIT_DEPTHS = (3, 12, 48)  # the fixed-cost fit's models, in layers of Linear + ReLU
FIT = {f"stack{n}": (stack_of(n), max(2, 120 // n), 25) for n in FIT_DEPTHS}
# Steps before the steady state is timed. Past the dense first steps (numerics `dense_steps`)
# where they matter: the small steps, where graddoctor's own cost shows. GPT-2 (~2.5 s a step on
# one CPU thread) and the CNN are timed still inside the dense phase, which costs more than the
# steady state: their figure is an upper bound.
WARM = {"gpt2": 8, "cnn": 8}
NO_LOSSDATA = "watch() w/o GD50x"
NO_FINGERPRINT = "w/o fingerprint"
VARIANTS = ("plain", "watch()", NO_FINGERPRINT, NO_LOSSDATA, "watch(deep=True)", "detect_anomaly()")
FIRST_STEPS = 100  # the "first 100 steps" column: a fresh session's first steps, where everything is measured
FIRST_STEPS_FOR = ("mlp3", "mlp24")  # the others' steps take too long for 100 of them per round
START_STEPS = 4  # "session start": a fresh session's first steps, where it discovers the model
# Steady state begins after the run's first steps, where everything is measured at every step
# (numerics options `dense_steps`): a long run spends nearly all of its steps after them.
WARM_STEPS = 128


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def _clock(device: str):
    """CPU time on CPU (one thread: what the step costs, whatever else the shared machine runs);
    wall time on CUDA, where waiting for the device is the cost."""
    return time.process_time if device == "cpu" else time.perf_counter


def _block(step, n: int, device: str = "cpu") -> float:
    clock = _clock(device)
    _sync(device)
    start = clock()
    for _ in range(n):
        step()
    _sync(device)
    return (clock() - start) / n * 1e3


def _without_lossdata(w):
    """The same watch without the loss/data observer (GD501-GD505): their cost is the difference."""
    w.session.observers[:] = [o for o in w.session.observers if o.name != "lossdata"]
    return w


def _without_fingerprint(w):
    """The same watch with every observer shown every iteration (session/rhythm.py off)."""
    w.session.rhythm.enabled = False
    return w


def measure(name: str, rounds: int | None, steps: int | None, device: str = "cpu") -> dict[str, float]:
    torch.manual_seed(0)
    make, default_steps, default_rounds = {**WORKLOADS, **FIT}[name]
    n, rounds = steps or default_steps, rounds or default_rounds
    model, opt, step = make(device)
    watches = {"watch()": watch(model, opt), NO_FINGERPRINT: _without_fingerprint(watch(model, opt)),
               NO_LOSSDATA: _without_lossdata(watch(model, opt)), "watch(deep=True)": watch(model, opt, deep=True)}
    for _ in range(2):
        step()
    for w in watches.values():
        with w:
            for _ in range(WARM.get(name, WARM_STEPS)):
                step()  # not timed: the session's start (the first steps measure everything) is timed apart
    times: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for r in range(rounds):
        order = VARIANTS if r % 2 == 0 else VARIANTS[::-1]  # ABBA: no variant always runs first
        for variant in order:
            if variant == "plain":
                times[variant].append(_block(step, n, device))
            elif variant == "detect_anomaly()":
                with torch.autograd.detect_anomaly(check_nan=True):
                    times[variant].append(_block(step, n, device))
            else:
                with watches[variant]:
                    times[variant].append(_block(step, n, device))
    for w in watches.values():
        assert not w.session.internal_errors, w.session.internal_errors
    return {v: statistics.median(t) for v, t in times.items()}


def observer_costs(name: str, rounds: int | None, device: str = "cpu") -> dict[str, float]:
    """Extra µs per step of watch() with every observer, with each one left out, and with none:
    what an observer costs is `all - without it`; `none` is the instrumentation itself (the
    call patches and step hooks with no observer to call). Interleaved blocks, median over rounds."""
    torch.manual_seed(0)
    make, n, default_rounds = {**WORKLOADS, **FIT}[name]
    model, opt, step = make(device)
    full = watch(model, opt)
    names = [o.name for o in full.session.observers]
    watches = {"all": full, "none": watch(model, opt)}
    watches["none"].session.observers[:] = []
    for left_out in names:
        w = watches[f"without {left_out}"] = watch(model, opt)
        w.session.observers[:] = [o for o in w.session.observers if o.name != left_out]
    for w in watches.values():
        with w:
            for _ in range(WARM.get(name, WARM_STEPS)):
                step()
    times: dict[str, list[float]] = {"plain": [], **{k: [] for k in watches}}
    for r in range(rounds or default_rounds):
        order = list(times) if r % 2 == 0 else list(times)[::-1]
        for variant in order:
            if variant == "plain":
                times[variant].append(_block(step, n, device))
            else:
                with watches[variant]:
                    times[variant].append(_block(step, n, device))
    plain = statistics.median(times["plain"])
    return {k: (statistics.median(v) - plain) * 1e3 for k, v in times.items() if k != "plain"}


def measure_start(name: str, rounds: int, device: str = "cpu", steps: int = START_STEPS) -> dict[str, float]:
    """ms per step over a fresh session's first `steps` steps (made and attached in the time), and plain."""
    torch.manual_seed(0)
    make = WORKLOADS[name][0]
    model, opt, step = make(device)
    for _ in range(2):
        step()
    times: dict[str, list[float]] = {"plain": [], "watch()": []}
    for r in range(rounds):
        for variant in (("plain", "watch()") if r % 2 == 0 else ("watch()", "plain")):
            if variant == "plain":
                times[variant].append(_block(step, steps, device))
                continue
            clock = _clock(device)
            _sync(device)
            start = clock()
            w = watch(model, opt)
            with w:
                for _ in range(steps):
                    step()
                _sync(device)
                times[variant].append((clock() - start) / steps * 1e3)
            assert not w.session.internal_errors, w.session.internal_errors
    return {v: statistics.median(t) for v, t in times.items()}


def call_counts(name: str, steps: int = 400, warm: int = 200, top: int = 15) -> None:
    """Python calls into graddoctor per steady step, counted with `sys.setprofile`: a measure
    of the fixed cost that the machine's load does not move (CPU time does, by 2-5x on a shared
    machine). Counts every Python function entered whose code lives in the graddoctor package,
    and the C functions those frames call; prints the total per step and the most called."""
    from collections import Counter

    import graddoctor

    root = str(Path(graddoctor.__file__).resolve().parent)
    torch.manual_seed(0)
    make = {**WORKLOADS, **FIT}[name][0]
    model, opt, step = make("cpu")
    counts: Counter = Counter()
    builtin_calls = 0

    def profile(frame, event, arg):
        nonlocal builtin_calls
        code = frame.f_code
        if code.co_filename.startswith(root):
            if event == "call":
                counts[(code.co_filename[len(root) + 1:], code.co_name)] += 1
            elif event == "c_call":
                builtin_calls += 1

    results = {}
    for variant, configure in (("watch()", None), (NO_FINGERPRINT, _without_fingerprint)):
        w = watch(model, opt)
        if configure:
            configure(w)
        counts.clear()
        builtin_calls = 0
        with w:
            for _ in range(warm):
                step()
            sys.setprofile(profile)
            try:
                for _ in range(steps):
                    step()
            finally:
                sys.setprofile(None)
        results[variant] = (sum(counts.values()) / steps, builtin_calls / steps, counts.most_common(top))
    for variant, (python, builtin, common) in results.items():
        print(f"{name} {variant}: {python:.1f} Python calls and {builtin:.1f} C calls from graddoctor per step "
              f"(steps {warm}-{warm + steps} of one session)")
        for (path, function), n in common:
            print(f"  {n / steps:7.2f}  {path}:{function}")


def start_call_counts(name: str, sessions: int = 20, steps: int = START_STEPS, top: int = 25) -> None:
    """Python calls into graddoctor per session start: a new watch(), attached, its first `steps`
    steps and its detach (the "start" column's work), counted as `call_counts` does, averaged over
    `sessions` fresh sessions on one model (after 2 plain steps)."""
    from collections import Counter

    import graddoctor

    root = str(Path(graddoctor.__file__).resolve().parent)
    torch.manual_seed(0)
    make = {**WORKLOADS, **FIT}[name][0]
    model, opt, step = make("cpu")
    for _ in range(2):
        step()
    counts: Counter = Counter()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(root):
            counts[(frame.f_code.co_filename[len(root) + 1:], frame.f_code.co_name)] += 1

    for _ in range(2):  # first sessions import and cache what every later one reuses
        with watch(model, opt):
            for _ in range(steps):
                step()
    sys.setprofile(profile)
    try:
        for _ in range(sessions):
            w = watch(model, opt)
            with w:
                for _ in range(steps):
                    step()
    finally:
        sys.setprofile(None)
    print(f"{name} session start: {sum(counts.values()) / sessions:.1f} Python calls into graddoctor per session "
          f"(watch(), attach, {steps} steps, detach; mean of {sessions})")
    for (path, function), n in counts.most_common(top):
        print(f"  {n / sessions:8.1f}  {path}:{function}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--start-rounds", type=int, default=None)
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--only", action="append")
    parser.add_argument("--no-fit", action="store_true", help="skip the fixed-cost fit over 3/12/48 layers")
    parser.add_argument("--first-steps", action="append", default=None, metavar="NAME",
                        help=f"also time the first {FIRST_STEPS} steps of a fresh session on NAME "
                             f"(default: {', '.join(FIRST_STEPS_FOR)})")
    parser.add_argument("--observers", metavar="NAME",
                        help="only: what each observer costs per step on workload NAME (left out one at a time)")
    parser.add_argument("--calls", metavar="NAME",
                        help="only: Python calls into graddoctor per steady step on workload NAME (load-independent)")
    parser.add_argument("--start-calls", metavar="NAME",
                        help="only: Python calls into graddoctor per session start on workload NAME (load-independent)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default=None,
                        help="default: cpu, then cuda when a GPU is present")
    # One thread: on a shared 2-core machine, two spinning OpenMP threads per op make
    # tiny ops wait milliseconds for a core, and the noise hides everything else.
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv if argv is not None else [])
    torch.set_num_threads(args.threads)
    import warnings

    warnings.filterwarnings("ignore")
    devices = [args.device] if args.device else ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    names = args.only or list(WORKLOADS)
    if args.calls:
        call_counts(args.calls)
        return
    if args.start_calls:
        start_call_counts(args.start_calls)
        return
    if args.observers:
        costs = observer_costs(args.observers, args.rounds, devices[0])
        print(f"[{devices[0]}] {args.observers}: extra us per step under watch() (an observer's own cost is "
              "'all' minus 'without' it; 'none' is the instrumentation alone)")
        for variant, extra in costs.items():
            own = f"  -> {costs['all'] - extra:6.1f} us its own" if variant.startswith("without") else ""
            print(f"  {variant:<28}{extra:8.1f} us{own}")
        return
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s), load average "
          f"{os.getloadavg()[0]:.1f}; ms per step (CPU time on cpu, wall time on cuda): median over interleaved rounds")
    for device in devices:
        print(f"\n[{device}] steady state (after each session's first {WARM_STEPS} steps; "
              f"{', '.join(f'{k} {v}' for k, v in WARM.items())}: an upper bound, see WARM)")
        print(f"  then: 'start', a new watch(), attached, and its first {START_STEPS} steps; 'first {FIRST_STEPS}', "
              f"its first {FIRST_STEPS} steps (ratios to plain steps timed beside them)")
        first_for = args.first_steps if args.first_steps is not None else FIRST_STEPS_FOR
        print(f"{'workload':<8}" + "".join(f"{v:>24}" for v in VARIANTS) + f"{'GD50x alone':>13}{'start':>9}"
              f"{f'first {FIRST_STEPS}':>11}")
        for name in names:
            result = measure(name, args.rounds, args.steps, device)
            plain = result["plain"]
            cells = "".join(f"{f'{result[v]:8.2f} ms {result[v] / plain:6.3f}x':>24}" for v in VARIANTS)
            own = result["watch()"] / result[NO_LOSSDATA]  # the loss/data checks' own cost
            rounds = args.start_rounds or max(3, {**WORKLOADS, **FIT}[name][2] // 2)
            start = measure_start(name, rounds, device)
            first = "-"
            if name in first_for:
                timed = measure_start(name, max(3, rounds // 3), device, steps=FIRST_STEPS)
                first = f"{timed['watch()'] / timed['plain']:.3f}x"
            print(f"{name:<8}{cells}{own:>12.3f}x{start['watch()'] / start['plain']:>8.3f}x{first:>11}", flush=True)
        if not args.no_fit:
            fixed_cost(args.rounds, device)


def fixed_cost(rounds: int | None, device: str) -> None:
    """The extra host time per step under watch() against the model's module count, fitted by
    least squares over models that differ only in depth: the intercept is what every step
    pays whatever the model (the fixed cost), the slope what each module adds."""
    print(f"[{device}] fixed cost: extra us per step under watch(), models of {'/'.join(map(str, FIT_DEPTHS))} "
          "layers of Linear(32, 32) + ReLU")
    xs, ys, deep, off = [], [], [], []
    for name in FIT:
        make = FIT[name][0]
        modules = sum(1 for _ in make()[0].modules())
        result = measure(name, rounds, None, device)
        extra = (result["watch()"] - result["plain"]) * 1e3
        xs.append(modules)
        ys.append(extra)
        deep.append((result["watch(deep=True)"] - result["plain"]) * 1e3)
        off.append((result[NO_FINGERPRINT] - result["plain"]) * 1e3)
        print(f"  {name:<8}{modules:4d} modules  plain {result['plain'] * 1e3:8.1f} us  watch() +{extra:7.1f} us "
              f"({result['watch()'] / result['plain']:.3f}x)  deep=True +{deep[-1]:7.1f} us", flush=True)
    slope, intercept = _line(xs, ys)
    deep_slope, deep_intercept = _line(xs, deep)
    off_slope, off_intercept = _line(xs, off)
    print(f"  watch():     fixed {intercept:7.1f} us per step, {slope:6.2f} us per module")
    print(f"  deep=True:   fixed {deep_intercept:7.1f} us per step, {deep_slope:6.2f} us per module")
    print(f"  watch() w/o fingerprint: fixed {off_intercept:7.1f} us per step, {off_slope:6.2f} us per module")


def _line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope and intercept."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return slope, my - slope * mx


if __name__ == "__main__":
    main(sys.argv[1:])
