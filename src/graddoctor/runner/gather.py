"""End of a distributed `graddoctor run`: one report for all ranks, one exit code on every rank.

Every rank publishes what it found; rank 0 merges (findings from other ranks
carry their `rank`; a diagnosis rank 0 already made is not repeated), compares
the replicas' fingerprints (GD402), chooses the exit code and announces it;
the other ranks exit with that code.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import time
from dataclasses import dataclass, field

from graddoctor.exits import EXIT_FINDINGS, EXIT_INTERNAL
from graddoctor.distributed.channel import Channel
from graddoctor.distributed.context import DistContext
from graddoctor.observers.ddp import DDPObserver
from graddoctor.rules.frameworks.gd402_ddp_replicas_diverged.judge import ASK_AT_MOST, compact, first_divergence, ranks_phrase, replicas_diverged
from graddoctor.finding import Finding
from graddoctor.report.report import Report


def _seconds(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


# How long rank 0 waits for the others. A rank whose own script crashed waits
# little: its peers are then usually blocked in a collective that will never
# complete, and torchrun ends them once this rank exits.
WAIT_S = _seconds("GRADDOCTOR_DIST_TIMEOUT", 120.0)
WAIT_AFTER_CRASH_S = _seconds("GRADDOCTOR_DIST_CRASH_TIMEOUT", 10.0)


@dataclass
class RankResult:
    rank: int
    findings: list[Finding]
    status: str | None
    exception: dict | None
    exit_code: int
    samples: list[dict] = field(default_factory=list)


def own_samples(session) -> list[dict]:
    """This rank's GD402 samples, with their per-parameter fingerprints."""
    return [s for o in session.observers if isinstance(o, DDPObserver) for s in o.samples]


def payload(ctx: DistContext, report: Report, session, exit_code: int) -> dict:
    """What a rank sends rank 0: its findings, and one digest per GD402 sample (not one number per parameter)."""
    samples = [compact(s) for s in own_samples(session)]
    return {
        "rank": ctx.rank,
        "findings": [f.to_json() for f in report.findings],
        "status": report.status,
        "exception": report.exception,
        "exit_code": exit_code,
        "samples": samples,
    }


def _result(data: dict) -> RankResult:
    return RankResult(
        rank=data["rank"],
        findings=[Finding.from_json(f) for f in data["findings"]],
        status=data.get("status"),
        exception=data.get("exception"),
        exit_code=int(data.get("exit_code", 0)),
        samples=list(data.get("samples", [])),
    )


@dataclass
class Gathered:
    report: Report  # rank 0: merged; other ranks: their own
    code: int  # the exit code, the same on every rank
    channel: Channel | None = None
    main: bool = True
    present: list[int] = field(default_factory=list)  # the ranks that answered
    alone: bool = False  # another rank, and rank 0 never answered: this rank speaks for itself

    def done(self) -> None:
        """Every rank, once its output is written: leave together with the common code.

        Rank 0 tells its verdict only now, so that no rank ends before the
        report is out; then the ranks meet at a barrier. torchrun stops every
        rank with SIGTERM as soon as one exits with a failure: with a failing
        code the ranks ignore that signal from here on (they are already
        leaving), so that each ends with the common code instead of -15.
        """
        sys.stdout.flush()
        sys.stderr.flush()
        if self.channel is None:
            return
        if self.main:
            self.channel.announce(self.code, self.present)
        self.channel.arrive("exit", self.present)
        if self.present:
            self.channel.await_all("exit", WAIT_AFTER_CRASH_S)
        if self.code:
            try:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
            except ValueError:  # not the main thread: nothing to protect
                pass


def gather(ctx: DistContext, report: Report, session, exit_code: int, fail_on: str) -> Gathered:
    """Every rank calls this; rank 0 gets the merged report, the others their own. Both get the exit code."""
    crashed = report.status == "crashed"
    wait = WAIT_AFTER_CRASH_S if crashed else WAIT_S
    try:
        channel = Channel(ctx, wait)
        channel.publish(payload(ctx, report, session, exit_code))
    except Exception as exc:  # no store reachable: report this rank alone, say why
        report.notes.append(
            f"graddoctor could not reach the other ranks ({type(exc).__name__}: {exc}); "
            f"this is rank {ctx.rank}'s report alone."
        )
        return Gathered(report, exit_code)
    if not ctx.is_main:
        # A crashed rank waits little: rank 0 is then usually blocked in a collective
        # with it, and will never answer; this rank reports for itself instead.
        deadline = time.monotonic() + (wait if crashed else wait + WAIT_S)
        asked = channel.asked(deadline)
        if asked is not None and ctx.rank in asked:  # rank 0 saw this replica differ: which parameters?
            step = asked[ctx.rank]
            channel.send_prints(next((s["prints"] for s in own_samples(session) if s["step"] == step), {}))
        verdict = channel.verdict(deadline) if asked is not None else None
        if verdict is None:
            report.notes.append(
                f"Rank 0 gave no merged report (it is still running, blocked, or gone): this is rank "
                f"{ctx.rank}'s report alone."
            )
            return Gathered(report, exit_code, channel, main=False, alone=True)
        code, present = verdict
        return Gathered(report, code, channel, main=False, present=present)
    answers = {rank: _result(data) for rank, data in channel.collect(wait).items()}
    if 0 in answers:
        answers[0].samples = own_samples(session)  # rank 0's own, with every parameter's fingerprint
    found = first_divergence({r: a.samples for r, a in answers.items()})
    wanted = {r: found[0] for r in found[1][:ASK_AT_MOST]} if found else {}
    channel.ask(wanted)  # always said, even empty: the other ranks wait for it before the verdict
    fetched = channel.fetch_prints(list(wanted), WAIT_AFTER_CRASH_S) if wanted else {}
    merged, code = merge(report, answers, ctx.world_size, fail_on, exit_code, fetched)
    return Gathered(merged, code, channel, present=sorted(answers))


def merge(own: Report, answers: dict[int, RankResult], world_size: int, fail_on: str, own_code: int,
          prints: dict[int, dict[str, int]] | None = None) -> tuple[Report, int]:
    """Rank 0's report with the other ranks' own findings, GD402, and the exit code for all.

    `prints`: the per-parameter fingerprints rank 0 asked of ranks whose GD402 digest differed."""
    findings = list(own.findings)
    seen = {f.key() for f in findings}
    for rank in sorted(answers):
        if rank == 0:
            continue
        for f in answers[rank].findings:
            if f.key() not in seen:
                seen.add(f.key())
                findings.append(f.with_(rank=rank))
    prints = prints or {}
    diverged = replicas_diverged({r: a.samples for r, a in answers.items()}, lambda rank, step: prints.get(rank))
    # Unused parameters without find_unused_parameters (GD401, and the run crashed on DDP's reduction
    # error): DDP never finished the reduction, so each rank stepped on its own gradients. The drift
    # is that finding's consequence, and its fix.
    reduction_failed = any(f.code == "GD401" for f in findings) and (
        own.status == "crashed" or any(a.status == "crashed" for a in answers.values()))
    if diverged is not None and not reduction_failed:
        findings.append(diverged)

    status, exception = own.status, own.exception
    crashed = [r for r in sorted(answers) if answers[r].status == "crashed"]
    if status != "crashed" and crashed:
        status, exception = "crashed", answers[crashed[0]].exception
    missing = [r for r in range(world_size) if r not in answers]
    notes = list(own.notes)
    if missing:
        who = ranks_phrase(missing)
        notes.append(
            f"{who[0].upper()}{who[1:]} did not report: killed, hung, or still running when rank 0 stopped "
            f"waiting (GRADDOCTOR_DIST_TIMEOUT); {'its' if len(missing) == 1 else 'their'} findings are not in this report."
        )
    # rank 0's report, built from its session by runner/build_report.py, with the other ranks' parts
    merged = dataclasses.replace(own, findings=findings, status=status, exception=exception, notes=notes)
    codes = [own_code] + [answers[r].exit_code for r in sorted(answers) if r != 0]
    if EXIT_INTERNAL in codes:
        code = EXIT_INTERNAL
    elif merged.fails(fail_on) or crashed or missing or own.status == "crashed":
        code = EXIT_FINDINGS
    else:
        code = next((c for c in codes if c), 0)
    return merged, code
