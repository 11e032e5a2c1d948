"""`graddoctor demo [NAME]`: run the gallery under `graddoctor run` and show each diagnosis.

Each program runs as a real `graddoctor run` subprocess, as a user would run it,
two at a time (these machines have 2 cores). The demo exits 0 only when every
diagnosis came out as the gallery expects, so it doubles as an installation check.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from graddoctor.cli.parser import Parser
from graddoctor.demo.programs import Program, gallery


def demo_command(argv: list[str]) -> int:
    parser = Parser(prog="graddoctor demo", description="Run the gallery of broken training loops under graddoctor run.")
    parser.add_argument("names", nargs="*", metavar="NAME", help="programs to run (default: all); see --list")
    parser.add_argument("--list", action="store_true", help="list the programs and what each must be diagnosed with")
    parser.add_argument("--jobs", "-j", type=int, default=max(1, min(4, os.cpu_count() or 1)),
                        help="programs run at once (default: the CPU count, at most 4)")
    parser.add_argument("--quiet", "-q", action="store_true", help="print only the summary table")
    opts = parser.parse_args(argv)

    programs = gallery()
    if opts.list:
        for p in programs:
            print(f"{p.name:<32} {', '.join(p.codes):<14} {p.title}")
        return 0
    if opts.names:
        chosen = [p for p in programs if p.name in opts.names or any(p.name.startswith(n.lower()) for n in opts.names)]
        unknown = [n for n in opts.names if not any(p.name == n or p.name.startswith(n.lower()) for p in programs)]
        if unknown:
            parser.error(f"no demo program {unknown[0]!r}; 'graddoctor demo --list' shows them")
        programs = chosen

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="graddoctor-demo-") as work:
        with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
            results = list(pool.map(lambda p: _run_one(p, Path(work)), programs))
    failures = 0
    for program, (output, report, problems) in zip(programs, results):
        if not opts.quiet:
            print(f"\n{'━' * 100}\n{program.name}: {program.title}\n{'━' * 100}")
            print(output.rstrip())
        if problems:
            failures += 1
    print(f"\n{'program':<32} {'expected':<16} result")
    for program, (_, _, problems) in zip(programs, results):
        verdict = "ok" if not problems else "WRONG: " + "; ".join(problems)
        print(f"{program.name:<32} {', '.join(program.codes):<16} {verdict}")
    elapsed = time.perf_counter() - start
    print(f"\n{len(programs) - failures} of {len(programs)} diagnosed as expected in {elapsed:.1f} s")
    return 0 if failures == 0 else 1


def _run_one(program: Program, work: Path) -> tuple[str, dict, list[str]]:
    folder = work / program.name
    folder.mkdir()
    script = folder / program.path.name
    shutil.copy(program.path, script)
    report_path = folder / "report.json"
    env = dict(os.environ, COLUMNS=os.environ.get("COLUMNS", "100"), PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "graddoctor", "run", "--json", str(report_path), script.name]
    try:
        proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=120, env=env)
    except subprocess.TimeoutExpired:
        return "(timed out after 120 s)", {}, ["timed out"]
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    output = proc.stdout + (("\n" + user_traceback(proc.stderr, report, folder)) if proc.stderr.strip() else "")
    if proc.returncode == 3 or not report:
        return output, {}, [f"graddoctor run failed (exit {proc.returncode})"]
    return output, report, program.judge(report)


def user_traceback(stderr: str, report: dict, folder: Path) -> str:
    """The script's traceback cut to the user's frames, with the forward line a backward error comes from.

    The last lines of stderr alone are torch's frames inside backward(): they say
    nothing about the program. Library frames are folded into one line, as a count.
    """
    rows = stderr.rstrip().splitlines()
    starts = [i for i, row in enumerate(rows) if row.startswith("Traceback (most recent call last)")]
    if not starts:
        return "\n".join(rows[-6:])
    before, tb = rows[: starts[-1]], rows[starts[-1]:]
    out, hidden, i = [tb[0]], 0, 1
    while i < len(tb) and tb[i].startswith("  "):
        frame = [tb[i]]
        i += 1
        while i < len(tb) and tb[i].startswith("    "):
            frame.append(tb[i])
            i += 1
        match = re.match(r'  File "(.*)", line \d+', frame[0])
        if match and not (folder / match.group(1)).resolve().is_relative_to(folder.resolve()):
            hidden += 1
            continue
        if hidden:
            out.append(f"  [{hidden} frame{'s' * (hidden > 1)} inside libraries]")
            hidden = 0
        if match:  # the program's own file, named as in its folder (Python prints `__file__`, absolute)
            shown = (folder / match.group(1)).resolve().relative_to(folder.resolve())
            frame[0] = frame[0].replace(f'"{match.group(1)}"', f'"{shown}"', 1)
        out.extend(frame)
    if hidden:
        out.append(f"  [{hidden} frame{'s' * (hidden > 1)} inside libraries]")
    out.extend(tb[i:])
    out.extend(_forward_sites(report, folder))
    return "\n".join([row for row in before[-2:] if row.strip()] + out)


def _forward_sites(report: dict, folder: Path) -> list[str]:
    """For an error raised by backward(): where the findings say the failing value was computed."""
    exc = report.get("exception") or {}
    if not exc.get("file") or "backward" not in _source_line(folder / exc["file"], exc.get("line")):
        return []
    sites = []
    for f in report.get("findings", []):
        if f.get("file") == exc["file"] and f.get("line") not in (None, exc.get("line")):
            line = _source_line(folder / f["file"], f["line"]).strip()
            sites.append(f"The value backward() failed on comes from {f['file']}:{f['line']} ({f['code']}):")
            sites.append(f"    {line}")
            break
    return sites


def _source_line(file: Path, line: int | None) -> str:
    import linecache

    return linecache.getline(str(file), line) if line else ""
