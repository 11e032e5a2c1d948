"""What `graddoctor fix` prints after the report: each edit as a diff, then what the re-run proved;
and the two loss curves in the HTML report."""

from __future__ import annotations

import html as html_mod


def summary(plan, verdicts, edited, before, opts) -> str:
    if not plan.fixes and not verdicts:
        return "graddoctor fix: no finding has an edit of your code\n"
    shown = [v.fix for v in verdicts] if verdicts else plan.fixes
    out = ["", f"graddoctor fix: {len(shown)} edit{'s' if len(shown) != 1 else ''}", ""]
    for fix in shown:
        f = fix.finding
        out.append(f"{f.code} {f.file}:{f.line}  {fix.title}")
        out.append(fix.diff.rstrip("\n"))
        out.append("")
    if verdicts is None:
        out.append("Not verified: `--verify` runs the edited program to prove the edits"
                   + ("; --no-verify: `--write` applied them as they are" if opts.write else "") + ".")
        return "\n".join(out) + "\n"
    out.append(_ran(edited))
    for v in verdicts:
        f = v.fix.finding
        if v.verified:
            out.append(f"  {f.code} {f.file}:{f.line}  gone, nothing new  verified")
        else:
            out.append(f"  {f.code} {f.file}:{f.line}  FAILED (not written): {v.reason}")
    out.append(f"  loss: before {_ends(before)}; after {_ends(edited.loss)}")
    return "\n".join(out) + "\n"


def _ran(edited) -> str:
    if edited.failure and edited.status == "crashed" and not edited.findings:
        return f"verify: the edited program could not be run: {edited.failure.strip().splitlines()[-1] if edited.failure.strip() else ''}"
    if edited.status == "crashed" and edited.exception:
        e = edited.exception
        return f"verify: the edited program crashed after {edited.steps} optimizer steps: {e['type']}: {e['message']} ({e['file']}:{e['line']})"
    return f"verify: the edited program ran {edited.steps} optimizer step{'s' if edited.steps != 1 else ''} ({edited.status})"


def _ends(curve) -> str:
    if not curve:
        return "no loss observed"
    (s0, v0), (s1, v1) = curve[0], curve[-1]
    return f"{v0:.4g} → {v1:.4g} (step {s0} → {s1})"


def add_loss_chart(path: str, before, after) -> None:
    """Put the chart of both runs' loss into the HTML report `fix` wrote."""
    from graddoctor.report.svg import line_chart_svg

    chart = line_chart_svg({"original": before, "edited": after}, label="loss per optimizer step")
    if not chart:
        return
    with open(path, encoding="utf-8") as handle:
        page = handle.read()
    section = f'<section class="fixloss"><h2>{html_mod.escape("Loss before and after the edits")}</h2>{chart}</section>'
    at = page.rfind("</body>")
    page = page[:at] + section + page[at:] if at >= 0 else page + section
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(page)
