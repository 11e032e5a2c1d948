"""The `fix` object of findings whose edit is known (SPEC section 2), for `run`, `lint` and `fix`."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.editing.plan import Plan


def fix_object(diff: str, verified: bool | None = None, loss_before=None, loss_after=None,
               new_findings: list[str] | None = None, unmasked: list[str] | None = None) -> dict:
    out = {"diff": diff, "verified": verified, "loss_before": loss_before, "loss_after": loss_after,
           "new_findings": list(new_findings or [])}
    if unmasked:  # optional: findings of the edited run that the first run's NaN/Inf loss hid
        out["unmasked"] = list(unmasked)
    return out


def planned(plan: Plan) -> dict[int, dict]:
    """Each planned finding's unverified `fix` object, by the id of the finding it belongs to."""
    return {id(fix.finding): fix_object(fix.diff) for fix in plan.fixes}


def attach(findings: list[Finding], fixes: dict[int, dict]) -> list[Finding]:
    """`findings`, those with a fix object in `fixes` (by id) carrying it (Findings are frozen: new ones)."""
    return [f.with_(edit=fixes[id(f)]) if id(f) in fixes else f for f in findings]


def attach_known(findings: list[Finding], root: str) -> list[Finding]:
    """`findings` with the edits planned for them attached; as they are without libcst.

    The report is the user's diagnosis: an edit that cannot be planned leaves the finding as it is.
    """
    from graddoctor.editing.edits import codes

    wanted = set(codes())
    if not any(f.code in wanted for f in findings):
        return findings
    try:
        from graddoctor.editing.plan import plan

        found = plan(findings, root)
    except ImportError:
        return findings
    return attach(findings, planned(found))
