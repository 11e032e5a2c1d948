"""The `fix` object of findings whose edit is known (SPEC section 2), for `run`, `lint` and `fix`."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.editing.plan import Plan


def fix_object(diff: str, verified: bool | None = None, loss_before=None, loss_after=None,
               new_findings: list[str] | None = None) -> dict:
    return {"diff": diff, "verified": verified, "loss_before": loss_before, "loss_after": loss_after,
            "new_findings": list(new_findings or [])}


def attach(plan: Plan) -> None:
    """Give each planned finding its unverified `fix` object."""
    for fix in plan.fixes:
        fix.finding.fix = fix_object(fix.diff)


def attach_known(findings: list[Finding], root: str) -> Plan | None:
    """Plan and attach the edits for `findings`; None (and nothing attached) without libcst.

    The report is the user's diagnosis: an edit that cannot be planned leaves the finding as it is.
    """
    from graddoctor.editing.edits import codes

    wanted = set(codes())
    if not any(f.code in wanted for f in findings):
        return None
    try:
        from graddoctor.editing.plan import plan

        found = plan(findings, root)
    except ImportError:
        return None
    attach(found)
    return found
