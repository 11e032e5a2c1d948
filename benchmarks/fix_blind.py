"""Measure `graddoctor fix --write` (which verifies first) on a blind set of buggy programs.

For each buggy program of the set's MANIFEST.json (`expect` non-empty): copy it alone into a fresh
folder, run `graddoctor fix --write --json` there, then record which findings carried an edit, which
verified and were written, whether the written program still runs under plain python, and whether
an added line is the expert's `fixed_line` (whitespace aside). Diffs go to the keep folder for review.

Run: `PYTHONPATH=src python benchmarks/fix_blind.py [--blind DIR] [--jobs N] [--only SUBSTR[,SUBSTR...]] [--slice A:B] [--keep DIR]`.
`--slice 0:20` measures the manifest's buggy programs 0 to 19 only (the whole set takes long on a shared
machine: run it in slices into the same keep folder, rows.jsonl collects them). `--near-misses` runs the
correct programs instead: any edit offered or written there is harmful.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def one(entry: dict, blind: Path, keep: Path, timeout: float) -> dict:
    program = blind / entry["program"]
    work = Path(tempfile.mkdtemp(prefix="fixblind-"))
    target = work / program.name
    shutil.copy(program, target)
    before = target.read_text()
    out = {"name": program.stem, "expect": entry["expect"], "offered": [], "verified": [], "written": False,
           "runs": None, "expert_line": False, "note": ""}
    try:
        proc = subprocess.run([sys.executable, "-m", "graddoctor", "fix", "--write", "--quiet", "--json", "fix.json",
                               program.name], cwd=work, capture_output=True, text=True, timeout=timeout, env=_env())
        out["note"] = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
    except subprocess.TimeoutExpired:
        out["note"] = "timeout"
        return out
    report = json.loads((work / "fix.json").read_text()) if (work / "fix.json").exists() else {"findings": []}
    for f in report["findings"]:
        fix = f.get("fix")
        if fix:
            out["offered"].append(f["code"])
            if fix.get("verified"):
                out["verified"].append(f["code"])
            (keep / f"{program.stem}.{f['code']}.diff").write_text(fix["diff"] + f"\nverified: {fix.get('verified')}\n")
    after = target.read_text()
    out["written"] = after != before
    if out["written"]:
        (keep / f"{program.stem}.written.py").write_text(after)
        try:
            ran = subprocess.run([sys.executable, program.name], cwd=work, capture_output=True, text=True, timeout=timeout)
            out["runs"] = ran.returncode == 0
        except subprocess.TimeoutExpired:
            out["runs"] = False
        wanted = " ".join(entry.get("fixed_line", "").split())
        out["expert_line"] = bool(wanted) and any(" ".join(line.split()) == wanted for line in after.splitlines())
    shutil.rmtree(work, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--blind", type=Path, default=ROOT / "benchmarks" / "blind")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="")
    parser.add_argument("--slice", default=":")
    parser.add_argument("--near-misses", action="store_true")
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--timeout", type=float, default=400)
    args = parser.parse_args()
    manifest = json.loads((args.blind / "MANIFEST.json").read_text())["programs"]
    if args.near_misses:
        entries = [e for e in manifest if e.get("correct")]
    else:
        entries = [e for e in manifest if e.get("expect") and e.get("source_fix")]
    wanted = args.only.split(",")  # "b05,b07": those programs only
    entries = [e for e in entries if any(w in e["program"] for w in wanted)]
    start, _, stop = args.slice.partition(":")
    entries = entries[int(start) if start else None:int(stop) if stop else None]
    keep = args.keep or Path(tempfile.mkdtemp(prefix="fixblind-keep-"))
    keep.mkdir(parents=True, exist_ok=True)
    def measured(entry: dict) -> dict:
        row = one(entry, args.blind, keep, args.timeout)
        with open(keep / "rows.jsonl", "a") as handle:  # as they come: a long run can be read before it ends
            handle.write(json.dumps(row) + "\n")
        return row

    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(measured, entries))
    print("| program | expected | edits offered | verified | written | runs after | expert's line |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['name']} | {','.join(r['expect'])} | {','.join(r['offered']) or '-'} | {','.join(r['verified']) or '-'} "
              f"| {'yes' if r['written'] else 'no'} | {'-' if r['runs'] is None else ('yes' if r['runs'] else 'NO')} "
              f"| {'yes' if r['expert_line'] else '-'} |")
    offered = sum(bool(r["offered"]) for r in rows)
    written = [r for r in rows if r["written"]]
    print(f"\nprograms: {len(rows)}; with an edit offered: {offered}; with a verified edit written: {len(written)}; "
          f"written programs that run: {sum(bool(r['runs']) for r in written)}/{len(written)}; "
          f"written edits that are the expert's line: {sum(r['expert_line'] for r in written)}")
    codes = sorted({c for r in rows for c in r["expect"]})
    if codes:
        print("\n| code | programs | edit offered | verified and written | written and runs |")
        print("| --- | --- | --- | --- | --- |")
        for code in codes:
            mine = [r for r in rows if code in r["expect"]]
            print(f"| {code} | {len(mine)} | {sum(bool(r['offered']) for r in mine)} | {sum(r['written'] for r in mine)} "
                  f"| {sum(bool(r['runs']) for r in mine)} |")
    print(f"diffs kept in {keep}")
    json.dump(rows, open(keep / "rows.json", "w"), indent=1)


if __name__ == "__main__":
    main()
