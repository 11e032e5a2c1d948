"""`--verify`: run the edited program from a temporary copy and judge each edit by what that run found.

The copy mirrors the script's folder: every entry is a link to the original except the
edited files (and the folders that hold them), so data files, sibling modules and
`__file__`-relative paths work as in the first run, and the user's files stay untouched.
The edited run gets the same arguments and cwd, for as many optimizer steps as the
first run observed (capped by `--max-steps`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

from graddoctor.finding import Finding, Severity
from graddoctor.editing.plan import FileEdit, Plan, PlannedFix
from graddoctor.fix.losses import Curve, LineLoss


@dataclass
class EditedRun:
    findings: list[Finding] = field(default_factory=list)
    lines: list[LineLoss] = field(default_factory=list)  # per backward line, the most stepped first
    loss: Curve = field(default_factory=Curve)  # the series compared with the original's
    printed: str = ""  # what the script printed
    status: str = "crashed"
    exception: dict | None = None
    steps: int = 0
    failure: str | None = None  # the run itself could not be made: its last output


@dataclass
class Verdict:
    fix: PlannedFix
    gone: bool
    new_findings: list[str]
    verified: bool
    reason: str | None = None  # why it failed, in plain words
    # findings the first run could not have made: measured values that its NaN/Inf loss hid
    unmasked: list[str] = field(default_factory=list)


def overlay(root: str, files: dict[str, FileEdit]) -> str:
    """A temporary mirror of `root` holding the edited texts; everything else links to the original."""
    copy = tempfile.mkdtemp(prefix="graddoctor-fix-")
    edited = {os.path.relpath(p, root): f.after for p, f in files.items()}
    folders = {os.path.dirname(rel) for rel in edited}
    folders = {d for rel in folders for d in _parents(rel)}

    def mirror(rel: str) -> None:
        here = os.path.join(root, rel)
        for name in os.listdir(here):
            sub = os.path.normpath(os.path.join(rel, name))
            target = os.path.join(copy, sub)
            if sub in edited:
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write(edited[sub])
            elif sub in folders:
                os.mkdir(target)
                mirror(sub)
            elif name != "__pycache__":
                os.symlink(os.path.join(here, name), target)

    mirror("")
    return copy


def _parents(rel: str) -> list[str]:
    out = []
    while rel:
        out.append(rel)
        rel = os.path.dirname(rel)
    return out


def run_edited(plan: Plan, root: str, script: str, args: list[str], max_steps: int | None) -> EditedRun:
    root = os.path.realpath(root)
    copy = overlay(root, plan.files)
    try:
        out = os.path.join(copy, ".graddoctor-fix-result.json")
        edited_script = os.path.join(copy, os.path.relpath(os.path.realpath(script), root))
        cmd = [sys.executable, "-m", "graddoctor.fix.child", out, root, copy, str(max_steps or ""), edited_script, *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=_env())
        if not os.path.exists(out):
            return EditedRun(failure=(proc.stdout + proc.stderr)[-2000:] or f"exit code {proc.returncode}")
        with open(out, encoding="utf-8") as handle:
            data = json.load(handle)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    report = data["report"]
    lines = [LineLoss.from_json(s) for s in data.get("lines", [])]
    return EditedRun(
        findings=[Finding.from_json(f) for f in report["findings"]],
        lines=lines,
        loss=lines[0].curve() if lines else Curve(),
        printed=proc.stdout,
        status=report["status"],
        exception=report["exception"],
        steps=report["steps_observed"] or 0,
        failure="; ".join(data.get("internal_errors") or []) or None,
    )


def _env() -> dict[str, str]:
    """The child imports this graddoctor, whichever way this one was found."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def judge(plan: Plan, before: list[Finding], edited: EditedRun, before_lines: list[LineLoss] | None = None,
          printed_before: str | None = None) -> list[Verdict]:
    """Per edit: is its finding gone, did the edited program run to its end without a crash, did errors or
    warnings appear that the first run did not have, and does it still train the same loss?"""
    from graddoctor.fix.objective import objective_changed, same_line
    from graddoctor.fix.printed import metrics

    maps = {f.shown: f.line_map() for f in plan.files.values()}
    known = {(f.code, f.file, maps.get(f.file, {}).get(f.line, f.line) if f.line else None) for f in before}
    hidden_from = _non_finite_from(before)
    unmasked = sorted({_key(f) for f in edited.findings if f.severity >= Severity.WARNING and _hidden(f, hidden_from)})
    new = sorted({_key(f) for f in edited.findings
                  if f.severity >= Severity.WARNING and (f.code, f.file, f.line) not in known} - set(unmasked))
    _, same = same_line(before_lines or [], edited.lines, maps)
    if same is not None:
        edited.loss = same.curve()
    crash = _crash(edited)
    changed = None if crash else objective_changed(
        before_lines or [], edited.lines, maps, metrics(printed_before) if printed_before else None,
        metrics(edited.printed) if edited.printed else None)
    verdicts = []
    for fix in plan.fixes:
        f = fix.finding
        gone = not any(g.code == f.code and g.file == f.file and _key(g) not in unmasked for g in edited.findings)
        reason = crash or changed
        if reason is None and new:
            reason = "new: " + ", ".join(new)
        if reason is None and not gone:
            reason = "its finding is still reported"
        verdicts.append(Verdict(fix, gone, new, reason is None, reason, unmasked))
    return verdicts


# Judged from the values of losses, gradients and updates: a run whose loss is NaN/Inf from its
# first steps cannot show them, so the edited run's are not the edit's doing.
_MEASURED = frozenset({"GD303", "GD304", "GD305", "GD306", "GD308"})
_EARLY = 5  # a first non-finite loss by this step leaves nothing measured to compare


def _non_finite_from(before: list[Finding]) -> int | None:
    """The optimizer step from which the first run's loss was NaN/Inf, when that was early and an op's
    doing (not diverging updates, which are measured)."""
    steps = [f.step or 1 for f in before if f.code == "GD301" and not f.evidence.get("diverged")]
    first = min(steps, default=None)
    return first if first is not None and first <= _EARLY else None


def _hidden(f: Finding, non_finite_from: int | None) -> bool:
    """Measured from values the first run never had: its loss was NaN/Inf from the start. A NaN/Inf loss
    of the edited run counts when its evidence says the updates diverged first (a different cause
    from an op's NaN, which the edit is meant to remove)."""
    if non_finite_from is None:
        return False
    return f.code in _MEASURED or bool(f.evidence.get("diverged"))


def _crash(edited: EditedRun) -> str | None:
    """Why the edited program did not run to its end (or to the step cap), in plain words; None when it did."""
    if edited.failure is not None and not edited.findings and edited.status == "crashed" and edited.exception is None:
        tail = edited.failure.strip().splitlines()
        return "the edited program could not be run" + (f": {tail[-1]}" if tail else "")
    if edited.status == "crashed":
        e = edited.exception
        if e:
            where = f" at {e['file']}:{e['line']}" if e.get("file") else ""
            return f"the edited program crashed: {e['type']}: {e['message']}{where}"
        return "the edited program crashed"
    if edited.failure is not None:
        return f"graddoctor failed while running the edited program: {edited.failure.strip().splitlines()[-1]}"
    if edited.status not in ("completed", "stopped"):
        return f"the edited program did not run to its end ({edited.status})"
    return None


def _key(f: Finding) -> str:
    return f"{f.code}@{f.file}:{f.line}" if f.line else f"{f.code}@{f.file}"
