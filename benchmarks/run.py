"""`make bench`: run every benchmarks/bench_*.py and print its table.

Each benchmark measures its variants side by side in one process and prints
ratios, because these machines are shared and noisy: absolute times move,
ratios measured together hold.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import time


def main(argv: list[str]) -> int:
    here = pathlib.Path(__file__).resolve().parent
    wanted = set(argv)
    failed = 0
    for path in sorted(here.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if wanted and name not in wanted:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        print(f"\n=== {name} ({path.name}) ===", flush=True)
        start = time.perf_counter()
        try:
            module.main()
        except Exception as exc:  # keep going: one broken benchmark should not hide the others
            failed += 1
            print(f"benchmark {name} failed: {type(exc).__name__}: {exc}", flush=True)
        print(f"({name}: {time.perf_counter() - start:.1f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
