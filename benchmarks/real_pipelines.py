"""Real public training pipelines, run plainly and under `graddoctor run` (issues 20, 29).

Runs the unchanged training scripts of public repositories (real_pipelines_corpus.REPOS:
pytorch/examples, nanoGPT, minGPT, Lightning, accelerate, ignite, PyTorch-GAN, ...) twice in
the same fresh working directory: `python SCRIPT ARGS`, then
`python -m graddoctor run --quiet --json R SCRIPT ARGS` (same args, cwd, seed,
environment). Each configuration uses tiny sizes and synthetic stand-ins for
downloads (benchmarks/real_pipelines_stubs: torchvision, gymnasium, requests, ...).
With --deep the second run is inside `graddoctor.watch(deep=True)` instead
(real_pipelines_deep.py: deep mode for the whole run, issue 30).

For each configuration it prints both exit codes, every finding, whether the
printed losses (and saved checkpoints, where the script saves one) are
bit-identical, and the time ratio; then a summary. These are correct
programs: the goal is no error, no warning, identical results.

    python benchmarks/real_pipelines.py --mirror /work/.mirror [--only NAME ...] [--markdown FILE] [--json FILE]
    python benchmarks/real_pipelines.py --examples DIR --nanogpt DIR ... --repo NAME=DIR ...

Each DIR is a snapshot of that repository: an extracted tree or a (bare) git
directory, which is exported to a temporary tree first; --mirror DIR takes every
repository found as DIR/OWNER+NAME/repo (where `fetch` puts them). Not part of `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_pipelines_compare import compare_artifacts, loss_numbers  # noqa: E402
from real_pipelines_configs import Config  # noqa: E402
from real_pipelines_corpus import CONFIGS, REPOS  # noqa: E402
from real_pipelines_snapshot import as_tree  # noqa: E402

HERE = Path(__file__).resolve().parent
STUBS = HERE / "real_pipelines_stubs"
SEED = HERE / "real_pipelines_seed"
DEEP = HERE / "real_pipelines_deep.py"
SRC = HERE.parent / "src"


@dataclass
class RunResult:
    rc: int
    seconds: float
    stdout: str
    stderr: str
    timed_out: bool


@dataclass
class Outcome:
    config: Config
    plain: RunResult
    doctor: RunResult
    findings: list = field(default_factory=list)
    report_status: Optional[str] = None
    steps_observed: Optional[int] = None
    losses_plain: list = field(default_factory=list)
    losses_doctor: list = field(default_factory=list)
    artifacts: Optional[str] = None  # None: nothing saved to compare; "" identical; else what differs
    artifacts_note: str = ""
    error: str = ""  # the benchmark's own failure on this configuration

    @property
    def identical(self) -> Optional[bool]:
        if not self.config.deterministic or self.plain.timed_out or self.doctor.timed_out:
            return None
        checks = []
        if self.losses_plain or self.losses_doctor:
            checks.append(self.losses_plain == self.losses_doctor)
        if self.artifacts is not None:
            checks.append(self.artifacts == "")
        return all(checks) if checks else None

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.get("severity") == severity)

    @property
    def exit_ok(self) -> bool:
        """The instrumented exit code is the plain one, or 1 explained by an error/warning."""
        if self.doctor.rc == self.plain.rc:
            return True
        return self.doctor.rc == 1 and self.plain.rc == 0 and (self.count("error") + self.count("warning")) > 0


def _run(cmd: list, cwd: Path, env: dict, timeout: float) -> RunResult:
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                              errors="replace")
        return RunResult(proc.returncode, time.perf_counter() - start, proc.stdout, proc.stderr, False)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return RunResult(124, time.perf_counter() - start, out, err, True)


def _environment(config: Config, tree: Path, extra: list, repo: Path) -> dict:
    env = dict(os.environ)
    paths = ([str(SEED)] if config.seed else []) + [str(repo / p) for p in config.library]
    paths += ([str(STUBS)] if config.stubs else []) + [str(SRC)] + [str(tree / p) for p in config.pythonpath]
    paths += [str(p.resolve()) for p in extra]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    # the same hash seed for both runs: set and dict order must not differ between them
    env["PYTHONHASHSEED"] = "0"
    env["MPLBACKEND"] = "Agg"
    # tqdm redraws a bar (and the loss it shows) at most every 0.1 s: which losses get printed depends on
    # how fast each run goes, so an instrumented run showed other ones (ignite's MNIST examples); every one
    env.setdefault("TQDM_MININTERVAL", "0")
    env.setdefault("GD_BENCH_DATASET_LEN", "256")
    env.setdefault("GD_BENCH_DATASET_LEN_TEST", "128")
    env.update(config.env)
    return env


def run_config(config: Config, trees: dict, scratch: Path, timeout: float, python: str,
               extra_paths: list, deep: bool = False) -> Outcome:
    tree = trees[config.repo]
    template = scratch / f"{config.name}.template"
    work = scratch / f"{config.name}.work"
    shutil.copytree(tree / config.workdir, template, symlinks=True)
    extra_env = config.prepare(template) if config.prepare else None
    env = _environment(config, template, extra_paths, tree)
    env.update(extra_env or {})
    env["PYTHONPATH"] = env["PYTHONPATH"].replace(str(template), str(work))
    report = scratch / f"{config.name}.report.json"
    saved = {}
    results = {}
    for mode in ("plain", "doctor"):
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(template, work, symlinks=True)
        cmd = [python, config.script, *config.args]
        if mode == "doctor":
            cmd = ([python, str(DEEP), str(report)] if deep else
                   # --quiet: the report goes to the JSON only, so that no number of its text is read as a loss
                   [python, "-m", "graddoctor", "run", "--quiet", "--json", str(report)]) + [config.script, *config.args]
        results[mode] = _run(cmd, work / config.cwd, env, config.timeout or timeout)
        saved[mode] = scratch / f"{config.name}.{mode}.artifacts"
        for pattern in config.artifacts:
            for path in sorted(work.glob(pattern)):
                dest = saved[mode] / path.relative_to(work)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest)
    outcome = Outcome(config, results["plain"], results["doctor"])
    if report.exists():
        data = json.loads(report.read_text())
        outcome.findings = data.get("findings", [])
        outcome.report_status = data.get("status")
        outcome.steps_observed = data.get("steps_observed")
    outcome.losses_plain = loss_numbers(results["plain"].stdout + results["plain"].stderr, config.loss_words)
    outcome.losses_doctor = loss_numbers(results["doctor"].stdout + results["doctor"].stderr, config.loss_words)
    if config.artifacts:
        outcome.artifacts, outcome.artifacts_note = compare_artifacts(saved["plain"], saved["doctor"],
                                                                      work / config.cwd / Path(config.script).parent)
        if outcome.artifacts == "nothing saved":  # neither run got as far as saving: nothing to compare
            outcome.artifacts = None
    return outcome


def _finding_line(f: dict) -> str:
    where = f"{f.get('file')}:{f.get('line')}" if f.get("file") else "(no line)"
    first = (f.get("message") or "").splitlines()[0] if f.get("message") else ""
    return f"{f.get('code')} {f.get('severity')} {where} {first}"


def _identical_text(o: Outcome) -> str:
    if not o.config.deterministic:
        return "n/a (nondeterministic)"
    if o.plain.timed_out or o.doctor.timed_out:
        common = min(len(o.losses_plain), len(o.losses_doctor))
        same = o.losses_plain[:common] == o.losses_doctor[:common]
        return f"n/a (timeout; the first {common} losses {'equal' if same else 'DIFFER'})"
    ident = o.identical
    if ident is None:
        return "n/a (no loss printed)"
    what = []
    if o.losses_plain or o.losses_doctor:
        what.append(f"{len(o.losses_plain)} losses")
    if o.artifacts is not None:
        what.append("checkpoints")
    text = ("yes" if ident else "NO") + f" ({' + '.join(what)})"
    if o.artifacts:
        text += f"; {o.artifacts}"
    if o.artifacts_note:
        text += f"; note: {o.artifacts_note}"
    return text


def print_outcome(o: Outcome) -> None:
    ratio = o.doctor.seconds / max(o.plain.seconds, 1e-9)
    print(f"== {o.config.name}: {o.config.script} {' '.join(o.config.args)}")
    print(f"   exit plain {o.plain.rc}{' (timeout)' if o.plain.timed_out else ''}, "
          f"graddoctor {o.doctor.rc}{' (timeout)' if o.doctor.timed_out else ''}"
          f"{'' if o.exit_ok else '  <-- EXIT MISMATCH'}; status {o.report_status}, "
          f"{o.steps_observed} optimizer steps observed")
    print(f"   time plain {o.plain.seconds:.1f}s, graddoctor {o.doctor.seconds:.1f}s, ratio {ratio:.2f}")
    print(f"   losses identical: {_identical_text(o)}")
    if o.identical is False and o.losses_plain != o.losses_doctor:
        first = next((i for i, (a, b) in enumerate(zip(o.losses_plain, o.losses_doctor)) if a != b),
                     min(len(o.losses_plain), len(o.losses_doctor)))
        print(f"   first difference at loss #{first + 1}: plain {o.losses_plain[first:first + 3]}, "
              f"graddoctor {o.losses_doctor[first:first + 3]} ({len(o.losses_plain)} vs {len(o.losses_doctor)})")
    for f in o.findings:
        print(f"   {_finding_line(f)}")
    if o.plain.rc != 0 or o.doctor.rc not in (0, 1) or not o.exit_ok:
        for name, r in (("plain", o.plain), ("graddoctor", o.doctor)):
            tail = (r.stderr or r.stdout).strip().splitlines()[-6:]
            print(f"   {name} output tail:\n      " + "\n      ".join(tail))
    sys.stdout.flush()


def record(o: Outcome, deep: bool = False) -> dict:
    """What is kept of one configuration's outcome (the JSON of --results and the table's source)."""
    return {"name": o.config.name, "repo": o.config.repo, "workdir": o.config.workdir, "cwd": o.config.cwd,
            "deep": deep,
            "command": " ".join([o.config.script, *o.config.args]), "exit_plain": o.plain.rc,
            "exit_graddoctor": o.doctor.rc, "timed_out": o.plain.timed_out or o.doctor.timed_out,
            "exit_ok": o.exit_ok, "status": o.report_status, "steps_observed": o.steps_observed,
            "findings": o.findings, "identical": o.identical, "identical_text": _identical_text(o),
            "seconds_plain": round(o.plain.seconds, 2), "seconds_graddoctor": round(o.doctor.seconds, 2),
            "tail_plain": (o.plain.stderr or o.plain.stdout).strip().splitlines()[-8:],
            "tail_graddoctor": (o.doctor.stderr or o.doctor.stdout).strip().splitlines()[-8:],
            "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def _count(r: dict, severity: str) -> int:
    return sum(1 for f in r["findings"] if f.get("severity") == severity)


def summary(records: list) -> dict:
    return {
        "configurations": len(records),
        "plain_ok": sum(r["exit_plain"] == 0 for r in records),
        "errors": sum(_count(r, "error") for r in records),
        "warnings": sum(_count(r, "warning") for r in records),
        "infos": sum(_count(r, "info") for r in records),
        "configs_with_error_or_warning": sum(_count(r, "error") + _count(r, "warning") > 0 for r in records),
        "identical": sum(r["identical"] is True for r in records),
        "not_identical": sum(r["identical"] is False for r in records),
        "not_compared": sum(r["identical"] is None for r in records),
        "exit_mismatches": sum(not r["exit_ok"] for r in records),
    }


def markdown(records: list) -> str:
    rows = ["| configuration | repository | command (in the repository's `workdir`) | exit plain / run | steps seen "
            "| errors / warnings / infos | identical | time ratio |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in records:
        ratio = r["seconds_graddoctor"] / max(r["seconds_plain"], 1e-9)
        where = "/".join(part for part in (r["workdir"], r.get("cwd", "")) if part not in (".", ""))
        where = where + "/" if where else ""
        cmd = f"`{where}{r['command']}`".replace("|", "\\|")
        rows.append(f"| {r['name']} | {REPOS.get(r['repo'], r['repo'])} | {cmd} | {r['exit_plain']} / {r['exit_graddoctor']}"
                    f"{'' if r['exit_ok'] else ' (mismatch)'}{' (timeout)' if r['timed_out'] else ''} "
                    f"| {r['steps_observed']} | {_count(r, 'error')} / {_count(r, 'warning')} / {_count(r, 'info')} "
                    f"| {r['identical_text']} | {ratio:.2f} ({r['seconds_plain']:.0f}s plain) |")
    found = [(r["name"], f) for r in records for f in r["findings"]]
    if found:
        rows += ["", "Findings:", ""] + [f"- {name}: {_finding_line(f)}".replace("|", "\\|") for name, f in found]
    return "\n".join(rows) + "\n"


def _stored(folder: Path) -> list:
    order = {c.name: i for i, c in enumerate(CONFIGS)}
    records = [json.loads(p.read_text()) for p in folder.glob("*.json")]
    return sorted(records, key=lambda r: order.get(r["name"], len(order)))


def _given(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict:
    """The repositories given, by short name: --NAME DIR, --repo NAME=DIR, or found under --mirror."""
    given = {name: getattr(args, name.replace("-", "_")) for name in REPOS if getattr(args, name.replace("-", "_"))}
    for item in args.repo:
        name, _, folder = item.partition("=")
        if name not in REPOS or not folder:
            parser.error(f"--repo {item}: give NAME=DIR with NAME one of {', '.join(REPOS)}")
        given[name] = Path(folder)
    if args.mirror:
        for name, full in REPOS.items():
            folder = args.mirror / full.replace("/", "+") / "repo"
            if name not in given and folder.is_dir():
                given[name] = folder
    return given


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for repo, full in REPOS.items():
        parser.add_argument(f"--{repo}", type=Path, help=f"snapshot of {full} (tree or git dir)")
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=DIR",
                        help="snapshot of the repository NAME (one of --list's); may be repeated")
    parser.add_argument("--mirror", type=Path, help="take every repository found as MIRROR/OWNER+NAME/repo")
    parser.add_argument("--deep", action="store_true",
                        help="run the second run inside graddoctor.watch(deep=True) (deep mode for the whole run) "
                             "instead of graddoctor run")
    parser.add_argument("--only", nargs="*", help="configuration names (default: all whose repository is given)")
    parser.add_argument("--list", action="store_true", help="list the configurations and exit")
    parser.add_argument("--pythonpath", action="append", default=[], type=Path,
                        help="a folder of extra packages for both runs (Lightning's CLI examples need "
                             "jsonargparse[signatures]: pip install --target DIR 'jsonargparse[signatures]')")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds per run (default 240)")
    parser.add_argument("--markdown", type=Path, help="write the results table here")
    parser.add_argument("--json", type=Path, help="write the results as JSON here")
    parser.add_argument("--results", type=Path, help="keep each configuration's result here (NAME.json); "
                        "with no repository given, only build --markdown/--json from the results kept there")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (its path is printed)")
    args = parser.parse_args(argv)
    if args.list:
        for c in CONFIGS:
            print(f"{c.name:36} {c.repo:12} {c.workdir}/{c.cwd + '/' if c.cwd else ''}{c.script} {' '.join(c.args)}")
        return 0
    by_name = {c.name: c for c in CONFIGS}
    unknown = [n for n in args.only or [] if n not in by_name]
    if unknown:
        parser.error(f"unknown configurations: {' '.join(unknown)} (see --list)")
    given = _given(args, parser)
    if args.results and not given:
        return _write(_stored(args.results), args)
    scratch = Path(tempfile.mkdtemp(prefix="gd-real-pipelines-"))
    # --only runs in the order given, so the most telling configurations can go first
    chosen = [by_name[n] for n in args.only] if args.only else CONFIGS
    trees = {name: as_tree(folder, scratch / f"repo-{name}") for name, folder in given.items()
             if name in {c.repo for c in chosen}}
    chosen = [c for c in chosen if c.repo in trees]
    records = []
    for config in chosen:
        try:
            outcome = run_config(config, trees, scratch, args.timeout, sys.executable, args.pythonpath, args.deep)
        except Exception as exc:  # one broken configuration must not end the benchmark
            print(f"== {config.name}: BENCHMARK ERROR {type(exc).__name__}: {exc}")
            continue
        print_outcome(outcome)
        records.append(record(outcome, args.deep))
        if args.results:
            args.results.mkdir(parents=True, exist_ok=True)
            (args.results / f"{config.name}.json").write_text(json.dumps(records[-1], indent=1))
    if args.keep:
        print(f"scratch folder kept: {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return _write(records, args)


def _write(records: list, args: argparse.Namespace) -> int:
    totals = summary(records)
    print("\nSummary: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    if args.markdown:
        args.markdown.write_text(markdown(records))
    if args.json:
        args.json.write_text(json.dumps({"summary": totals, "configurations": records}, indent=1))
    clean = totals["errors"] == totals["warnings"] == totals["not_identical"] == totals["exit_mismatches"] == 0
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
