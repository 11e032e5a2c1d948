"""Measure graddoctor on the held-out programs: what `run` and `lint` find and where.

Usage (from the repository root):

    PYTHONPATH=src python benchmarks/heldout/measure.py [--jobs N] [--only SUBSTR] [--keep DIR] [--dir variants]

Each program in `programs/` starts with a header line

    # heldout: expect=GD104|GD110 line=42 alt_lines=40,43 static=yes
    # heldout: expect=none

For every program this script runs `python -m graddoctor run --json ...` and
`python -m graddoctor lint --format json ...` in fresh processes (so each
measurement is what a user sees) and scores:

- found: an expected code is among the error/warning findings
  (for a correct program: there is no error/warning finding at all);
- located: a finding with an expected code names the program's file at `line`
  or one of `alt_lines`;
- lint recall: found by `lint`, over the `static=yes` programs;
- false alarms: error/warning findings on the correct programs.

It prints a markdown report (per program, per class, totals) on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
ROOT = HERE.parent.parent
HEADER = re.compile(r"^# heldout: (.*)$")
BLOCKING = {"error", "warning"}


@dataclass
class Program:
    path: Path
    expect: tuple[str, ...]  # empty for a correct program
    line: int | None
    alt_lines: tuple[int, ...]
    static: bool

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def lines(self) -> set[int]:
        return ({self.line} if self.line else set()) | set(self.alt_lines)

    @property
    def family(self) -> str:
        return f"{self.expect[0][:3]}xx" if self.expect else "correct"


@dataclass
class Outcome:
    codes: list[str] = field(default_factory=list)  # error/warning codes, in report order
    found: bool = False
    located: bool = False
    where: str = ""  # expected-code findings as CODE@line
    status: str = ""
    seconds: float = 0.0


def parse_header(path: Path) -> Program:
    match = HEADER.match(path.read_text().splitlines()[0])
    if not match:
        raise SystemExit(f"{path}: first line is not a '# heldout:' header")
    fields = dict(part.split("=", 1) for part in match.group(1).split())
    expect = () if fields["expect"] == "none" else tuple(fields["expect"].split("|"))
    alt = fields.get("alt_lines", "-")
    return Program(
        path=path,
        expect=expect,
        line=int(fields["line"]) if "line" in fields else None,
        alt_lines=() if alt in ("-", "") else tuple(int(n) for n in alt.split(",")),
        static=fields.get("static", "no") == "yes",
    )


def score(program: Program, report: dict | None, status: str, seconds: float) -> Outcome:
    outcome = Outcome(status=status, seconds=seconds)
    if report is None:
        return outcome
    blocking = [f for f in report.get("findings", []) if f.get("severity") in BLOCKING]
    outcome.codes = [f["code"] for f in blocking]
    if not program.expect:
        outcome.found = outcome.located = not blocking
        return outcome
    hits = [f for f in blocking if f["code"] in program.expect]
    outcome.found = bool(hits)
    # "(s)": the run reported it only from its static pass, not from what it observed
    outcome.where = " ".join(
        f"{f['code']}@{f.get('line')}{'(s)' if f.get('source') == 'static' else ''}" for f in hits
    )
    outcome.located = any(
        f.get("line") in program.lines and Path(f.get("file") or "").name == program.path.name
        for f in hits
    )
    return outcome


def run_tool(args: list[str], out: Path, timeout: float, cwd: Path = PROGRAMS) -> tuple[dict | None, str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "graddoctor", *args],
            cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
        )
        status = f"rc={proc.returncode}"
    except subprocess.TimeoutExpired:
        return None, "timeout", time.perf_counter() - start
    seconds = time.perf_counter() - start
    if not out.exists():
        return None, f"{status} no json: {proc.stderr.strip().splitlines()[-1:]}", seconds
    report = json.loads(out.read_text())
    return report, report.get("status", status) if args[0] == "run" else status, seconds


def measure(program: Program, keep: Path, timeout: float) -> tuple[Outcome, Outcome]:
    run_json = keep / f"{program.name}.run.json"
    lint_json = keep / f"{program.name}.lint.json"
    for stale in (run_json, lint_json):
        stale.unlink(missing_ok=True)
    where = program.path.parent
    run = score(program, *run_tool(["run", "--json", str(run_json), program.path.name], run_json, timeout, where))
    lint = score(program, *run_tool(
        ["lint", "--format", "json", "--output", str(lint_json), "--jobs", "1", program.path.name],
        lint_json, timeout, where,
    ))
    return run, lint


def mark(flag: bool) -> str:
    return "yes" if flag else "**no**"


def report(results: list[tuple[Program, Outcome, Outcome]]) -> str:
    out = ["### Per program", "",
           "| program | expect | line (alt) | run found | run located | run codes (error/warning) | run status | run s "
           "| static | lint found | lint located | lint codes |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for prog, run, lint in results:
        expect = "\\|".join(prog.expect) or "none"
        where = f"{prog.line} ({','.join(map(str, prog.alt_lines)) or '-'})" if prog.expect else "-"
        static = "yes" if prog.static else "no"
        lint_found = mark(lint.found) if (prog.static or not prog.expect) else f"({'yes' if lint.found else 'no'})"
        lint_loc = mark(lint.located) if prog.static else f"({'yes' if lint.located else 'no'})"
        if not prog.expect:
            lint_loc = "-"
        out.append(
            f"| {prog.name} | {expect} | {where} | {mark(run.found)} | "
            f"{mark(run.located) if prog.expect else '-'} | {' '.join(run.codes) or '-'}"
            f"{' [' + run.where + ']' if run.where else ''} | {run.status} | {run.seconds:.1f} | {static} | "
            f"{lint_found} | {lint_loc} | {' '.join(lint.codes) or '-'} |"
        )

    out += ["", "### Per class (buggy programs; `run`)", "",
            "| class | programs | run found | run located | static programs | lint found | lint located |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    families = sorted({p.family for p, _, _ in results if p.expect})
    for fam in families + ["all"]:
        rows = [(p, r, l) for p, r, l in results if p.expect and (fam == "all" or p.family == fam)]
        static = [(p, r, l) for p, r, l in rows if p.static]
        out.append(
            f"| {fam} | {len(rows)} | {sum(r.found for _, r, _ in rows)}/{len(rows)} | "
            f"{sum(r.located for _, r, _ in rows)}/{len(rows)} | {len(static)} | "
            f"{sum(l.found for _, _, l in static)}/{len(static)} | {sum(l.located for _, _, l in static)}/{len(static)} |"
        )

    buggy = [(p, r, l) for p, r, l in results if p.expect]
    static = [(p, r, l) for p, r, l in buggy if p.static]
    correct = [(p, r, l) for p, r, l in results if not p.expect]

    def pct(n: int, d: int) -> str:
        return f"{n}/{d} = {100 * n / d:.1f}%" if d else "n/a"

    out += ["", "### Totals", "",
            f"- run found: {pct(sum(r.found for _, r, _ in buggy), len(buggy))}",
            f"- run located: {pct(sum(r.located for _, r, _ in buggy), len(buggy))}",
            f"- lint recall (static=yes): {pct(sum(l.found for _, _, l in static), len(static))}",
            f"- lint located (static=yes): {pct(sum(l.located for _, _, l in static), len(static))}",
            f"- correct programs clean under run: {pct(sum(r.found for _, r, _ in correct), len(correct))}"
            f" (false alarms: {', '.join(f'{p.name}: ' + ' '.join(r.codes) for p, r, _ in correct if r.codes) or 'none'})",
            f"- correct programs clean under lint: {pct(sum(l.found for _, _, l in correct), len(correct))}"
            f" (false alarms: {', '.join(f'{p.name}: ' + ' '.join(l.codes) for p, _, l in correct if l.codes) or 'none'})",
            f"- lint error/warning findings on buggy programs with a code other than expected: "
            f"{', '.join(f'{p.name}: ' + ' '.join(c for c in l.codes if c not in p.expect) for p, _, l in buggy if any(c not in p.expect for c in l.codes)) or 'none'}"]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="programs measured at once")
    parser.add_argument("--only", default="", help="only programs whose name contains this")
    parser.add_argument("--keep", type=Path, help="keep the JSON reports in this folder")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per tool call")
    parser.add_argument("--dir", default="programs", help="folder of programs under benchmarks/heldout")
    args = parser.parse_args()

    folder = HERE / args.dir
    programs = [parse_header(p) for p in sorted(folder.glob("*.py")) if args.only in p.name]
    keep = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="heldout-"))
    keep.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        outcomes = list(pool.map(lambda p: measure(p, keep, args.timeout), programs))
    print(report([(p, r, l) for p, (r, l) in zip(programs, outcomes)]))


if __name__ == "__main__":
    main()
