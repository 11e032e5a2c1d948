"""Measure `graddoctor lint` (and optionally `graddoctor fix`) on the blind static set.

Usage (from the repository root):

    PYTHONPATH=src python benchmarks/blind/measure.py [--jobs N] [--only SUBSTR] [--keep DIR] [--fix] [--set DIR]

`MANIFEST.json` names, for every program in `programs/`, the code an expert
would give (`expect`), the 1-based line SPEC section 4 says the finding should
point at (`line`, with other acceptable lines in `alt_lines`), whether `lint`
is meant to find it (`static`: an `S` code in SPEC section 4), and the
expert's fix in words and as the fixed line. Correct near misses have
`"correct": true` and must stay silent.

Every program is linted in a fresh process (`lint --format json --isolated`),
so each row is what a user sees. Only error and warning findings count. A
buggy program is scored

- right line: a finding with an expected code at `line` or an `alt_lines` entry;
- elsewhere: a finding with an expected code, at another line;
- missed: no finding with an expected code;

and any error/warning on a correct program is a false alarm. With `--fix`,
`graddoctor fix --json` runs each buggy program (it executes the program) and
the table says whether a finding with the expected code carried an edit.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BLOCKING = {"error", "warning"}


@dataclass
class Entry:
    path: Path
    expect: tuple[str, ...]
    lines: frozenset[int]
    static: bool

    @property
    def name(self) -> str:
        return self.path.stem


@dataclass
class Result:
    verdict: str  # "right line" / "elsewhere" / "missed" / "silent" / "false alarm" / "failed: ..."
    codes: list[str] = field(default_factory=list)  # error/warning findings as CODE@line
    edit: str = ""  # with --fix: "edit" / "no edit" / "not found" / "failed: ..."


def load_manifest(folder: Path = HERE) -> list[Entry]:
    data = json.loads((folder / "MANIFEST.json").read_text())
    return [
        Entry(
            path=folder / item["program"],
            expect=tuple(item.get("expect", ())),
            lines=frozenset([item["line"], *item.get("alt_lines", ())]) if item.get("expect") else frozenset(),
            static=bool(item.get("static")),
        )
        for item in data["programs"]
    ]


def graddoctor(args: list[str], report: Path, cwd: Path, timeout: float) -> dict | str:
    """The JSON report graddoctor wrote, or why there is none."""
    report.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OMP_NUM_THREADS="1")
    try:
        proc = subprocess.run([sys.executable, "-m", "graddoctor", *args], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "failed: timeout"
    if not report.exists():
        return f"failed: rc={proc.returncode} {proc.stderr.strip().splitlines()[-1:]}"
    return json.loads(report.read_text())


def blocking(report: dict, entry: Entry) -> list[dict]:
    return [f for f in report.get("findings", []) if f.get("severity") in BLOCKING
            and Path(f.get("file") or entry.path.name).name == entry.path.name]


def lint_verdict(entry: Entry, keep: Path, timeout: float) -> Result:
    out = keep / f"{entry.name}.lint.json"
    report = graddoctor(["lint", "--format", "json", "--isolated", "--jobs", "1", "--output", str(out),
                         entry.path.name], out, entry.path.parent, timeout)
    if isinstance(report, str):
        return Result(report)
    found = blocking(report, entry)
    codes = [f"{f['code']}@{f.get('line')}" for f in found]
    if not entry.expect:
        return Result("false alarm" if found else "silent", codes)
    hits = [f for f in found if f["code"] in entry.expect]
    if any(f.get("line") in entry.lines for f in hits):
        return Result("right line", codes)
    return Result("elsewhere" if hits else "missed", codes)


def fix_verdict(entry: Entry, keep: Path, timeout: float) -> str:
    out = keep / f"{entry.name}.fix.json"
    report = graddoctor(["fix", "--quiet", "--json", str(out), entry.path.name], out, entry.path.parent, timeout)
    if isinstance(report, str):
        return report
    hits = [f for f in report.get("findings", []) if f.get("code") in entry.expect]
    if not hits:
        return "not found"
    return "edit" if any(f.get("fix") for f in hits) else "no edit"


def measure(entry: Entry, keep: Path, timeout: float, with_fix: bool) -> Result:
    result = lint_verdict(entry, keep, timeout)
    if with_fix and entry.expect:
        result.edit = fix_verdict(entry, keep, timeout)
    return result


def pct(n: int, d: int) -> str:
    return f"{n}/{d} = {100 * n / d:.1f}%" if d else "n/a"


def table(rows: list[tuple[Entry, Result]], with_fix: bool) -> str:
    head = "| program | expect | lines | static | lint verdict | lint error/warning findings |"
    rule = "| --- | --- | --- | --- | --- | --- |"
    if with_fix:
        head, rule = head + " fix |", rule + " --- |"
    out = ["### Per program", "", head, rule]
    for entry, res in rows:
        lines = ",".join(map(str, sorted(entry.lines))) or "-"
        verdict = res.verdict if res.verdict in ("right line", "silent") else f"**{res.verdict}**"
        row = (f"| {entry.name} | {'/'.join(entry.expect) or 'none'} | {lines} | "
               f"{'yes' if entry.static else 'no'} | {verdict} | {' '.join(res.codes) or '-'} |")
        out.append(row + (f" {res.edit or '-'} |" if with_fix else ""))

    static = [(e, r) for e, r in rows if e.expect and e.static]
    runtime_only = [(e, r) for e, r in rows if e.expect and not e.static]
    correct = [(e, r) for e, r in rows if not e.expect]
    count = lambda group, verdict: sum(r.verdict == verdict for _, r in group)  # noqa: E731
    out += ["", "### Per code (static programs)", "", "| code | programs | right line | elsewhere | missed |",
            "| --- | --- | --- | --- | --- |"]
    for code in sorted({e.expect[0] for e, _ in static}):
        group = [(e, r) for e, r in static if e.expect[0] == code]
        out.append(f"| {code} | {len(group)} | {count(group, 'right line')} | {count(group, 'elsewhere')} | "
                   f"{len(group) - count(group, 'right line') - count(group, 'elsewhere')} |")
    wrong = [f"{e.name}: {' '.join(c for c in r.codes if c.split('@')[0] not in e.expect)}"
             for e, r in rows if e.expect and any(c.split("@")[0] not in e.expect for c in r.codes)]
    out += ["", "### Totals", "",
            f"- static programs found at the right line: {pct(count(static, 'right line'), len(static))}",
            f"- static programs found (any line): "
            f"{pct(count(static, 'right line') + count(static, 'elsewhere'), len(static))}",
            f"- static programs missed: {pct(len(static) - count(static, 'right line') - count(static, 'elsewhere'), len(static))}",
            f"- runtime-only programs that lint found anyway: "
            f"{pct(count(runtime_only, 'right line') + count(runtime_only, 'elsewhere'), len(runtime_only))}",
            f"- correct programs silent: {pct(count(correct, 'silent'), len(correct))}; false alarms: "
            f"{', '.join(f'{e.name}: ' + ' '.join(r.codes) for e, r in correct if r.verdict != 'silent') or 'none'}",
            f"- other codes on buggy programs: {', '.join(wrong) or 'none'}"]
    if with_fix:
        fixable = [(e, r) for e, r in rows if e.expect]
        out.append(f"- buggy programs where `fix` offered an edit for the expected code: "
                   f"{pct(sum(r.edit == 'edit' for _, r in fixable), len(fixable))}")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="programs measured at once")
    parser.add_argument("--only", default="", help="only programs whose name contains this")
    parser.add_argument("--keep", type=Path, help="keep the JSON reports in this folder")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per graddoctor call")
    parser.add_argument("--fix", action="store_true", help="also run `graddoctor fix` on the buggy programs")
    parser.add_argument("--set", type=Path, default=HERE,
                        help="folder of the set to measure (its MANIFEST.json and programs/); "
                             "benchmarks/blind2 holds the second blind set")
    args = parser.parse_args()

    entries = [e for e in load_manifest(args.set.resolve()) if args.only in e.name]
    keep = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="blind-"))
    keep.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda e: measure(e, keep, args.timeout, args.fix), entries))
    print(table(list(zip(entries, results)), args.fix))


if __name__ == "__main__":
    main()
