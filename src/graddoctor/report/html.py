"""A self-contained HTML page of a report: findings with source excerpts, and the layer table."""

from __future__ import annotations

import html
import re

from graddoctor.finding import Finding
from graddoctor.report.source import SourceLines
from graddoctor.report.summary import severity_counts

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:60rem;color:#1d1d1f;padding:0 1rem}
h1{font-size:1.4rem} .summary{color:#555}
.finding{border-left:4px solid #999;padding:.5rem 1rem;margin:1rem 0;background:#fafafa}
.finding.error{border-color:#d32f2f}.finding.warning{border-color:#f9a825}.finding.info{border-color:#0288d1}
.code{font-weight:700}.sev{text-transform:uppercase;font-size:.75rem;font-weight:700;margin-right:.5rem}
.where{font-family:ui-monospace,monospace;color:#1565c0}
pre{background:#f0f0f0;padding:.4rem .6rem;overflow-x:auto;margin:.4rem 0}
.fix{color:#2e7d32}
table{border-collapse:collapse;font-size:.9rem}td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left;font-family:ui-monospace,monospace}
.nograd{color:#d32f2f;font-weight:700}
.counts span{display:inline-block;padding:.1rem .5rem;border-radius:.8rem;margin-right:.4rem;font-size:.85rem;color:#fff}
.counts .error{background:#d32f2f}.counts .warning{background:#f9a825;color:#1d1d1f}.counts .info{background:#0288d1}
.counts .ok{background:#2e7d32}
.legend{font-size:.85rem;color:#555}.legend i{display:inline-block;width:.9rem;height:.7rem;margin:0 .3rem 0 .8rem;vertical-align:middle}
"""


def _source(file: str | None, line: int | None, context: int = 1) -> str:
    if not file or not line:
        return ""
    reader = SourceLines()
    rows = []
    for n in range(max(1, line - context), line + context + 1):
        text = reader.line(file, n)
        if text is None:
            continue
        mark = ">" if n == line else " "
        rows.append(f"{mark}{n:>5} | {text.rstrip()}")
    return "\n".join(rows)


def _prose(text: str) -> str:
    """Escaped text whose `code spans` (as messages write them) render as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _finding(f: Finding) -> str:
    e = html.escape
    where = f"{f.file}:{f.line}" if f.file else ""
    parts = [
        f'<div class="finding {f.severity}" data-code="{e(f.code)}">',
        f'<div><span class="sev">{e(str(f.severity))}</span><span class="code">{e(f.code)}</span> '
        f'{e(f.name)} <span class="where">{e(where)}</span></div>',
    ]
    src = _source(f.file, f.line, 2)
    if src:
        parts.append(f"<pre>{e(src)}</pre>")
    parts.append(f"<p>{_prose(f.message)}</p>")
    for rel in f.related:
        rel_where = f"{rel.file}:{rel.line}" if rel.file else ""
        parts.append(f'<p>also <span class="where">{e(rel_where)}</span>: {_prose(rel.note)}</p>')
        rel_src = _source(rel.file, rel.line, 0)
        if rel_src:
            parts.append(f"<pre>{e(rel_src)}</pre>")
    if f.subjects:
        parts.append(f"<p>parameters: <code>{e(', '.join(f.subjects))}</code></p>")
    parts.append(f'<p class="fix"><b>hint:</b> {_prose(f.hint)}</p></div>')
    return "\n".join(parts)


def _layers_table(report) -> str:
    if not report.layers:
        return ""
    e = html.escape
    rows = ["<table><tr><th>layer</th><th>params</th><th>grad norm</th><th>max</th><th>update/weight</th></tr>"]
    for row in report.layers:
        def fmt(v):
            return "&ndash;" if v is None else f"{v:.3g}"

        last = fmt(row.grad_norm)
        if row.nonfinite_from is not None and row.last_finite is not None:
            last += f" (from step {row.nonfinite_from}; last finite {fmt(row.last_finite)})"
        name = e(row.label) if row.has_grad else f'<span class="nograd">{e(row.label)} (no gradient)</span>'
        rows.append(
            f"<tr><td>{name}</td><td>{row.params}</td><td>{last}</td>"
            f"<td>{fmt(row.grad_norm_max)}</td><td>{fmt(row.update_ratio)}</td></tr>"
        )
    rows.append("</table>")
    return "\n".join(rows)


def render_fragment(report) -> str:
    """The body of the page, also used as `Report._repr_html_` in notebooks."""
    from graddoctor.report.svg import gradient_flow_svg

    e = html.escape
    n = len(report.findings)
    summary = f"{n} finding{'s' if n != 1 else ''}"
    steps = report.steps_text()
    if steps is not None:
        summary += f", {steps} observed"
    if report.status:
        summary += f", {report.ran} {report.status}"
    badges = "".join(f'<span class="{sev}">{words}</span>' for sev, words in severity_counts(report.findings))
    badges = badges or '<span class="ok">no problems found</span>'
    parts = [f'<p class="counts">{badges}</p>', f'<p class="summary">{e(summary)}</p>']
    if report.exception:
        exc = report.exception
        parts.append(f"<p><b>The {e(report.ran)} raised</b> <code>{e(exc['type'])}: {e(exc['message'])}</code></p>")
    parts.extend(_finding(f) for f in report.findings)
    if report.layers:
        parts.append("<h2>Gradient flow</h2>")
        parts.append(gradient_flow_svg(report.layers))
        parts.append('<p class="legend">gradient norm per layer, log scale:<i style="background:#90caf9"></i>max over '
                     'steps<i style="background:#1565c0"></i>last step (last finite step where marked NaN/Inf)'
                     '<i style="background:#d32f2f"></i>no gradient, or NaN/Inf from the step marked</p>')
        parts.append(_layers_table(report))
    return "\n".join(parts)


def render_html(report) -> str:
    target = report.target if isinstance(report.target, str) else " ".join(report.target or [])
    title = f"graddoctor {report.command} {target}".strip()
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>\n{render_fragment(report)}\n</body></html>\n"
    )
