"""What `graddoctor fix` prints after the report: each edit as a diff, then what the re-run proved;
and the two loss curves in the HTML report."""

from __future__ import annotations

import html as html_mod

from graddoctor.fix.losses import Curve


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
        if v.verified and v.unmasked:
            out.append(f"  {f.code} {f.file}:{f.line}  its cause is gone  verified")
            out.append(f"    the edited run trains far enough to show what the first run's NaN/Inf loss hid: "
                       f"{', '.join(v.unmasked)}; fix those next")
        elif v.verified:
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
    """The loss at the start and at the end, each the median of a window of steps of the same batch
    size: one step's loss depends on its batch (a last batch of 4 samples), such a window's median does not."""
    if not curve:
        return "no loss observed"
    even, size = (curve if isinstance(curve, Curve) else Curve(curve)).even()
    only = ""
    if size is not None and len(even) >= 8:
        curve, only = even, f", batches of {size} only"  # not an epoch's short last batch
    if len(curve) < 4:
        (s0, v0), (s1, v1) = curve[0], curve[-1]
        return f"{v0:.4g} → {v1:.4g} (step {s0} → {s1})"
    n = min(8, len(curve) // 4)
    first, last = curve[:n], curve[-n:]
    return (f"{_median(first):.4g} → {_median(last):.4g} (medians of steps {first[0][0]}-{first[-1][0]} "
            f"and {last[0][0]}-{last[-1][0]}{only})")


def _median(points) -> float:
    values = sorted(v for _, v in points)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def add_loss_chart(path: str, before, after, edits: str = "") -> None:
    """Put the edits with their verdicts (`edits`: the text `summary` printed) and the chart of both
    runs' loss into the HTML report `fix` wrote."""
    from graddoctor.report.svg import line_chart_svg

    chart = line_chart_svg({"original": before, "edited": after}, label="loss per optimizer step")
    if not chart and not edits.strip():
        return
    with open(path, encoding="utf-8") as handle:
        page = handle.read()
    section = ""
    if edits.strip():
        section += (f'<section class="fixedits"><h2>The edits and what the re-run proved</h2>'
                    f'<pre>{html_mod.escape(edits.strip())}</pre></section>')
    if chart:
        section += f'<section class="fixloss"><h2>{html_mod.escape("Loss before and after the edits")}</h2>{chart}</section>'
    at = page.rfind("</body>")
    page = page[:at] + section + page[at:] if at >= 0 else page + section
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(page)
