"""`graddoctor lint` over every `.py` file of real repositories: what it reports, per repository, and how fast.

Give it local checkouts (or exported snapshots) of the repositories, e.g.
pytorch/examples, karpathy/nanoGPT, karpathy/minGPT, Lightning-AI/pytorch-lightning
and huggingface/accelerate:

    python benchmarks/lint_real_code.py /tmp/lintreal/pytorch+examples /tmp/lintreal/karpathy+nanoGPT ...

Every `.py` file under each path is linted (no `.gitignore` or exclude rules: all
the code a user could point lint at), in one process per core as the CLI does.
It prints each error and warning as `file:line CODE message`, then a count per
repository, then the wall time. Each finding is for a person to judge true or
false by reading the code; docs/precision-lint.md holds the last verdicts. It is
not part of `make test` or `make bench`: it needs the checkouts.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from graddoctor.lint.engine import lint_paths, prepare_process  # noqa: E402

_SEVERITY = {3: "error", 2: "warning"}


def python_files(repo: Path) -> list[str]:
    return sorted(str(p) for p in repo.rglob("*.py") if p.is_file() and not p.is_symlink())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path, help="checkouts of the repositories to lint")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: one per core)")
    args = parser.parse_args(argv)
    missing = [str(r) for r in args.repos if not r.is_dir()]
    if missing:
        parser.error(f"not a folder: {', '.join(missing)}")
    prepare_process()
    rows = []
    start = time.perf_counter()
    for repo in args.repos:
        files = python_files(repo)
        t0 = time.perf_counter()
        results = lint_paths(files, jobs=args.jobs)
        seconds = time.perf_counter() - t0
        counts: Counter[str] = Counter()
        for result in results:
            for f in result.findings:
                if f.severity < 2:
                    continue  # info is not a problem report
                counts[_SEVERITY.get(f.severity, "error")] += 1
                where = os.path.relpath(f.file or result.path, repo)
                print(f"{repo.name}/{where}:{f.line} {f.code} {_SEVERITY.get(f.severity, 'error')}: {f.message}")
        lines = sum(_count_lines(p) for p in files)
        rows.append((repo.name, len(files), lines, counts["error"], counts["warning"], seconds))
    total = time.perf_counter() - start
    print()
    print(f"{'repository':40} {'files':>6} {'lines':>8} {'errors':>7} {'warnings':>9} {'seconds':>8}")
    for name, n, lines, errors, warnings, seconds in rows:
        print(f"{name:40} {n:6d} {lines:8d} {errors:7d} {warnings:9d} {seconds:8.2f}")
    files = sum(r[1] for r in rows)
    found = sum(r[3] + r[4] for r in rows)
    print(f"{'total':40} {files:6d} {sum(r[2] for r in rows):8d} {sum(r[3] for r in rows):7d} "
          f"{sum(r[4] for r in rows):9d} {total:8.2f}")
    print(f"\n{found} errors/warnings in {files} files; wall time {total:.2f} s ({args.jobs} processes)")
    return 0


def _count_lines(path: str) -> int:
    try:
        with open(path, "rb") as handle:
            return handle.read().count(b"\n")
    except OSError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
