"""What graddoctor finds on every program the repository holds, to prove a refactoring changed nothing.

    python benchmarks/findings_snapshot.py write before.json      # on the old commit
    python benchmarks/findings_snapshot.py write after.json       # on the new one
    python benchmarks/findings_snapshot.py compare before.json after.json

`write` runs `graddoctor run --json --max-steps 60` on each rule's demo programs, the correct
corpus, the held-out programs and the fix programs, and `graddoctor lint --format json` on the lint
corpus, the held-out programs and the lint fixtures (two at a time), and keeps per program the exit
code, the status and each finding's code, severity, file name, line, step, message and hint.
`write --runtime-only` runs only the demo programs and the correct corpus under `graddoctor run` (no lint):
with `GRADDOCTOR_FINGERPRINT=0` in the environment of one of two such runs, it compares the iteration
fingerprint (session/rhythm.py) on and off.
`compare` prints what differs and exits 1 when anything does. Programs are matched by file name
(a demo program by its code), so the layout of the repository may change between the two runs.
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

ROOT = Path(__file__).resolve().parents[1]
_KEPT = ("code", "severity", "line", "step", "message", "hint")


def _programs() -> tuple[list[Path], list[Path]]:
    src = ROOT / "src" / "graddoctor"
    demos = sorted(src.glob("rules/*/gd*/gd*.py")) + sorted(src.glob("demo/gallery/gd*.py"))  # new and old layout
    run = demos + sorted((ROOT / "tests/corpus/programs").glob("*.py")) + sorted(
        (ROOT / "benchmarks/heldout/programs").glob("*.py")) + sorted((ROOT / "tests/fix/programs").glob("*.py"))
    lint = sorted((ROOT / "tests/lint/corpus").glob("*.py")) + sorted(
        (ROOT / "benchmarks/heldout/programs").glob("*.py")) + sorted((ROOT / "tests/lint/fixtures").glob("*.py"))
    return run, lint


def _key(kind: str, path: Path) -> str:
    name = f"{path.name[:5]}_demo" if path.parent.name.startswith("gd") or path.parent.name == "gallery" else path.name
    return f"{kind}:{name}"


def _one(job: tuple[str, Path]) -> tuple[str, dict]:
    kind, path = job
    with tempfile.TemporaryDirectory() as tmp:
        # a copy: some programs rewrite their own file, and the repository must stay as it was
        script = Path(tmp) / path.name
        shutil.copy(path, script)
        report = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "graddoctor"]
        command += (["run", "--json", str(report), "--max-steps", "60", "--fail-on", "never", "--quiet", str(script)]
                    if kind == "run" else ["lint", "--format", "json", "--fail-on", "never", str(script)])
        ran = subprocess.run(command, capture_output=True, text=True, cwd=tmp, timeout=600)
        try:
            data = json.loads(report.read_text() if kind == "run" else ran.stdout)
        except (OSError, ValueError):
            return _key(kind, path), {"rc": ran.returncode, "error": ran.stderr[-500:]}
    findings = [{**{k: f.get(k) for k in _KEPT}, "file": os.path.basename(f.get("file") or "")} for f in data["findings"]]
    findings.sort(key=lambda f: json.dumps(f, sort_keys=True))
    return _key(kind, path), {"rc": ran.returncode, "status": data.get("status"), "findings": findings}


def write(out: Path, runtime_only: bool = False) -> None:
    run, lint = _programs()
    if runtime_only:
        run = [p for p in run if "heldout" not in p.parts and "fix" not in p.parts]
        lint = []
    with ThreadPoolExecutor(2) as pool:
        results = dict(pool.map(_one, [("run", p) for p in run] + [("lint", p) for p in lint]))
    out.write_text(json.dumps(results, indent=1, sort_keys=True))
    print(f"{len(results)} programs written to {out}")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    differ = 0
    for name in sorted(set(a) | set(b)):
        if a.get(name) == b.get(name):
            continue
        differ += 1
        print(f"{name}: " + ("only before" if name not in b else "only after" if name not in a else "differs"))
        if name in a and name in b:
            for sign, mine, other in (("-", a[name], b[name]), ("+", b[name], a[name])):
                for f in mine.get("findings", []):
                    if f not in other.get("findings", []):
                        print(f"  {sign} {f['code']} {f['severity']} line {f['line']}: {f['message'][:160]}")
    print(f"{len(set(a) & set(b))} programs in both, {differ} differ")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    writing = sub.add_parser("write")
    writing.add_argument("out", type=Path)
    writing.add_argument("--runtime-only", action="store_true",
                         help="only the demo programs and the correct corpus under run")
    both = sub.add_parser("compare")
    both.add_argument("before", type=Path)
    both.add_argument("after", type=Path)
    opts = parser.parse_args()
    if opts.command == "write":
        write(opts.out, opts.runtime_only)
        return 0
    return compare(opts.before, opts.after)


if __name__ == "__main__":
    sys.exit(main())
