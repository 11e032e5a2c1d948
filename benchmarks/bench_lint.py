"""Lint speed: graddoctor lint against the ast.parse floor and against TorchFix, side by side.

The corpus is the package's own tests plus training-style programs generated at
bench time from tests/lint/corpus and tests/lint/fixtures (renamed and, in one
file of ten, broken), at least 200,000 lines; nothing generated is committed.

Rows:
- ast.parse floor: parse every file, one process, sources already in memory.
- graddoctor, 1 process: decode + parse + analyse + every check, sources in memory;
  timed file by file right after the floor's parse of the same file, best of 3 rounds.
- graddoctor, all cores: `lint_paths` as the CLI runs it (reads files, one process per core),
  against one plain pass of the floor.
- TorchFix (if installed) on a subset, one job, against the floor and graddoctor on that subset.
- Library code (if transformers is installed): its first 400 `models/*/modeling_*.py` files
  (about 408,000 lines of real, large modules that do not train), per-file best of 3 against the floor.

Run: `python benchmarks/bench_lint.py` (or `make bench`). Set BENCH_LINT_LINES to change the size.
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import random
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from graddoctor.lint.engine import lint_paths, lint_source  # noqa: E402

MIN_LINES = int(os.environ.get("BENCH_LINT_LINES", "200000"))
TORCHFIX_LINES = int(os.environ.get("BENCH_TORCHFIX_LINES", "12000"))
_RENAMES = ["model", "optimizer", "criterion", "loss", "scheduler", "loader", "x", "y"]
_BREAKS = [
    ("optimizer.zero_grad()", "pass"),
    ("loss.backward()", "loss.item().backward()"),
    ("scaler.unscale_(optimizer)", "pass"),
    ("+= loss.item()", "+= loss"),
]


def generate(folder: Path, min_lines: int) -> list[Path]:
    """Training-style files: the corpus and fixtures, renamed per copy, one in ten broken."""
    rng = random.Random(0)
    templates = [p.read_text() for p in sorted((ROOT / "tests/lint/corpus").glob("*.py"))]
    templates += [p.read_text() for p in sorted((ROOT / "tests/lint/fixtures").glob("*.py"))]
    files, lines, k = [], 0, 0
    while lines < min_lines:
        text = templates[k % len(templates)]
        for name in rng.sample(_RENAMES, 3):
            text = re.sub(rf"\b{name}\b", f"{name}_{k}", text)
        if k % 10 == 0:
            old, new = rng.choice(_BREAKS)
            text = text.replace(old, new, 1)
        path = folder / f"pkg{k // 200}" / f"train_{k}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        files.append(path)
        lines += text.count("\n")
        k += 1
    return files


def _interleaved(sources, rounds: int = 3) -> tuple[float, float]:
    """Total ast.parse and lint time, each file's best of `rounds`, the two timed back to back per file.

    The machines these run on are shared: timing parse and lint in separate
    blocks lets a burst of someone else's load land on one of them only.
    """
    best_parse = [float("inf")] * len(sources)
    best_lint = [float("inf")] * len(sources)
    clock = time.process_time  # CPU time: waiting for a core on a loaded machine does not count
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(rounds):
            for i, (path, data) in enumerate(sources):
                start = clock()
                try:
                    ast.parse(data, filename=path)
                except SyntaxError:
                    pass
                middle = clock()
                lint_source(data, path)
                end = clock()
                best_parse[i] = min(best_parse[i], middle - start)
                best_lint[i] = min(best_lint[i], end - middle)
    return sum(best_parse), sum(best_lint)


def _timed(fn, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _parse_all(sources) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path, data in sources:
            try:
                ast.parse(data, filename=path)
            except SyntaxError:
                pass


def _torchfix(paths: list[str]) -> float | None:
    try:
        import torchfix.__main__ as tf_main
    except ImportError:
        return None
    argv = sys.argv
    sys.argv = ["torchfix", "-j", "1", "--select", "ALL", *paths]
    sink = io.StringIO()
    start = time.process_time()  # with -j 1 TorchFix runs in this process: CPU time, like the rows above
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            tf_main.main()
    except SystemExit:
        pass
    finally:
        sys.argv = argv
    return time.process_time() - start


def _transformers_files(count: int = 400) -> list[Path]:
    try:
        import transformers
    except ImportError:
        return []
    return sorted(Path(transformers.__file__).parent.glob("models/*/modeling_*.py"))[:count]


def library_row() -> None:
    files = _transformers_files()
    if not files:
        print("transformers: not installed (pip install -e '.[dev]') -- library row skipped")
        return
    sources = [(str(p), p.read_bytes()) for p in files]
    n_lines = sum(d.count(b"\n") for _, d in sources)
    floor, serial = _interleaved(sources)
    findings = sum(len(lint_source(d, p).findings) for p, d in sources)
    print(f"\ntransformers (library code): {len(files)} files, {n_lines:,} lines, one process, CPU time, per-file best of 3")
    print(f"{'variant':<34}{'seconds':>9}{'lines/s':>12}{'x floor':>9}")
    for name, t in [("ast.parse floor", floor), ("graddoctor lint", serial)]:
        print(f"{name:<34}{t:>9.2f}{n_lines / t:>12,.0f}{t / floor:>9.2f}")
    print(f"findings: {findings}")


def main() -> None:
    from graddoctor.lint.engine import prepare_process

    prepare_process()  # what `graddoctor lint` does first (see its docstring)
    with tempfile.TemporaryDirectory(prefix="bench_lint_") as tmp:
        generated = generate(Path(tmp), MIN_LINES)
        own_tests = sorted(p for p in (ROOT / "tests").rglob("*.py"))
        paths = [str(p) for p in own_tests + generated]
        sources = [(p, Path(p).read_bytes()) for p in paths]
        n_lines = sum(d.count(b"\n") for _, d in sources)
        cores = os.cpu_count() or 1
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"corpus: {len(paths)} files, {n_lines:,} lines ({len(generated)} generated, {len(own_tests)} from tests/); "
              f"{cores} cores, load average {load:.1f}")
        print("1-process rows: CPU time; the multi-process row: wall time against one wall-clock pass of the floor")

        floor, serial = _interleaved(sources)
        wall_floor = _timed(lambda: _parse_all(sources))
        parallel = _timed(lambda: lint_paths(paths, jobs=cores))
        findings = sum(len(r.findings) for r in lint_paths(paths, jobs=cores))
        print(f"{'variant':<44}{'seconds':>9}{'lines/s':>12}{'x floor':>9}")
        for name, t, base in [
            ("ast.parse floor (1 process, per-file best)", floor, floor),
            ("graddoctor lint (1 process, per-file best)", serial, floor),
            ("ast.parse floor (1 process, one pass)", wall_floor, wall_floor),
            (f"graddoctor lint ({cores} processes, CLI path)", parallel, wall_floor),
        ]:
            print(f"{name:<44}{t:>9.2f}{n_lines / t:>12,.0f}{t / base:>9.2f}")
        print(f"findings: {findings} (fixture templates hold deliberate bugs; one generated file in ten is broken)")

        subset, lines = [], 0
        for p, d in sources[len(own_tests):]:
            if lines >= TORCHFIX_LINES:
                break
            subset.append((p, d))
            lines += d.count(b"\n")
        sub_paths = [p for p, _ in subset]
        tf = _torchfix(sub_paths)
        if tf is None:
            print("TorchFix: not installed (pip install torchfix) -- skipped")
            library_row()
            return
        sub_floor, sub_lint = _interleaved(subset)
        print(f"\nTorchFix subset: {len(sub_paths)} files, {lines:,} lines, one process each")
        print(f"{'variant':<34}{'seconds':>9}{'x floor':>9}")
        for name, t in [("ast.parse floor", sub_floor), ("graddoctor lint", sub_lint), ("TorchFix 0.x (--select ALL, -j 1)", tf)]:
            print(f"{name:<34}{t:>9.2f}{t / sub_floor:>9.2f}")
        print(f"graddoctor is {tf / sub_lint:.0f}x faster than TorchFix on the same files")
    library_row()


if __name__ == "__main__":
    main()
