"""`graddoctor fix [OPTIONS] SCRIPT [SCRIPT_ARGS...]`: run as `run` does, show the edits, prove them, write them.

The steps, in order: the run (`runner.cli_run.run_command`), the plan of edits, their
verification by a re-run (`--verify`), the report printed and written with each finding's
edit, then the edits' summary and `--write`.

The exit code is `run`'s, judged on the original program; 2 when the edits cannot be
written (nothing is written then).
"""

from __future__ import annotations

import sys
import time

from graddoctor.exits import EXIT_USAGE
from graddoctor.fix import FixUnavailable, require_libcst
from graddoctor.cli.run import RunResult, report_run, run_command, run_parser, split_run_args


def fix_main(argv: list[str]) -> int:
    ours, script_args = split_run_args(argv)
    parser = run_parser()
    parser.prog = "graddoctor fix"
    parser.description = "Run SCRIPT as `run` does, then show (and with --write apply) the edits that fix what it found."
    parser.add_argument("--verify", action="store_true", help="run the edited program (a temporary copy) and report whether each finding is gone")
    parser.add_argument("--write", action="store_true", help="verify the edits, then apply the verified ones to your files")
    parser.add_argument("--no-verify", action="store_true", help="with --write: write the edits without running them first (not recommended)")
    opts = parser.parse_args(ours)
    if opts.no_verify and opts.verify:
        parser.error("--verify and --no-verify contradict each other")
    if opts.no_verify and not opts.write:
        parser.error("--no-verify only makes sense with --write")
    if opts.write and not opts.no_verify:
        opts.verify = True  # nothing unproven is written
    if opts.module:
        parser.error("fix edits a script: give SCRIPT, not -m MODULE")
    if not opts.script:
        parser.error("give a SCRIPT to run")
    try:
        require_libcst()
    except FixUnavailable as exc:
        print(f"graddoctor fix: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    started = time.time()
    from graddoctor.fix.printed import capture, release

    # The script's own prints (its loss, its accuracy) are a second witness of what the edit did.
    tee = capture() if opts.verify else None
    try:
        with run_command(opts, opts.script, script_args) as ran:
            release(tee)
            return _after_run(ran, started, tee.text() if tee else None)
    finally:
        release(tee)


def _after_run(ran: RunResult, started: float, printed: str | None) -> int:
    if ran.code is not None:
        return ran.code
    if ran.dist is not None:  # under torchrun the report is the ranks' together: no edits
        return report_run(ran)
    fixing = _Fixing(ran, started, printed)
    fixing.plan_and_verify()  # the findings carry their edits (verified or not) ...
    code = report_run(ran)  # ... in the report printed and written ...
    return fixing.finish(code)  # ... and then the edits are shown and written


class _Fixing:
    def __init__(self, ran: RunResult, started: float, printed: str | None = None):
        self.opts, self.target, self.args, self.outcome = ran.opts, ran.target, ran.args, ran.outcome
        self.root, self.html = ran.root, ran.html_path
        self.started = started
        self.verdicts = None  # per edit, after --verify
        self.edited = None  # the edited program's run
        self.before: list[tuple[int, float]] = []  # the original run's loss curve
        self.printed = printed  # what the original script printed

    def plan_and_verify(self) -> None:
        """Before the report is printed and written: plan, verify, and put the results on the findings."""
        from graddoctor.editing.plan import plan
        from graddoctor.fix.attach import attach, planned

        findings = self.outcome.report.findings
        self.plan = plan(findings, self.root, self.started)
        fixes = planned(self.plan)
        if self.opts.verify and self.plan.fixes:
            fixes = self._verify(findings, fixes)
        self.outcome.report.findings = attach(findings, fixes)

    def _verify(self, findings, fixes: dict[int, dict]) -> dict[int, dict]:
        """The fix objects of `fixes` (by the id of the planned finding) with what the re-run proved."""
        from graddoctor.fix.losses import ends, line_losses
        from graddoctor.editing.plan import plan
        from graddoctor.fix.attach import fix_object
        from graddoctor.fix.verify import judge, run_edited

        steps = self.outcome.report.steps_observed or 0
        if self.outcome.report.status in ("completed", "crashed") or not steps:
            # The original ran to its end (or its bug ended it early, which is no count to match): the
            # edited program runs to its end too, its code after the loop included, unless --max-steps
            # says otherwise.
            cap = self.opts.max_steps
        else:
            cap = min(steps, self.opts.max_steps or steps)
        lines = line_losses(self.outcome.session)
        self.before = lines[0].curve() if lines else []
        self.edited = run_edited(self.plan, self.root, self.target, self.args, cap)
        self.verdicts = judge(self.plan, findings, self.edited, lines, self.printed)
        failed = [v for v in self.verdicts if not v.verified]
        passed = [v.fix.finding for v in self.verdicts if v.verified]
        if failed and passed:
            # A failed edit may be what broke the others: prove the rest on their own. What this
            # second run proved is what --write may write.
            self.plan = plan(passed, self.root, self.started)
            self.edited = run_edited(self.plan, self.root, self.target, self.args, cap)
            self.verdicts = judge(self.plan, findings, self.edited, lines, self.printed) + failed
        proved = {id(v.fix.finding): fix_object(fixes[id(v.fix.finding)]["diff"], v.verified, ends(self.before),
                                                ends(self.edited.loss), v.new_findings, v.unmasked)
                  for v in self.verdicts}
        return {**fixes, **proved}

    def finish(self, code: int) -> int:
        """After the report: the edits, the verification, and the writing."""
        from graddoctor.fix.render import summary

        said = summary(self.plan, self.verdicts, self.edited, self.before, self.opts)
        if not self.opts.quiet:
            sys.stdout.write(said)
        if self.html and (self.edited is not None or self.plan.fixes):
            from graddoctor.fix.render import add_loss_chart

            add_loss_chart(self.html, self.before, self.edited.loss if self.edited is not None else [], said)
        if self.opts.write:
            return self._write(code)
        return code

    def _write(self, code: int) -> int:
        from graddoctor.fix.write import WriteRefused, write_all

        if self.verdicts is not None:
            chosen = {id(v.fix.finding) for v in self.verdicts if v.verified}
            files = [f for f in self.plan.files.values() if all(id(x.finding) in chosen for x in f.fixes)]
        else:
            files = list(self.plan.files.values())
        if not files:
            print("graddoctor fix: nothing written" + (" (no edit verified)" if self.verdicts else ""), file=sys.stderr)
            return code
        try:
            write_all(files)
        except WriteRefused as exc:
            print(f"graddoctor fix: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        for f in files:
            print(f"graddoctor fix: wrote {len(f.fixes)} edit{'s' if len(f.fixes) != 1 else ''} to {f.shown}", file=sys.stderr)
        if self.verdicts is None:
            count = sum(len(f.fixes) for f in files)
            print(f"graddoctor fix: WARNING: --no-verify: {count} edit{'s' if count != 1 else ''} written WITHOUT verification; "
                  "they were never run: check them, or run `graddoctor fix --verify` to prove them", file=sys.stderr)
        return code
