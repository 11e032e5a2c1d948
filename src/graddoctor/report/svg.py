"""The gradient-flow chart as inline SVG: mean and max gradient norm per layer, log scale.

Drawn without matplotlib so that an HTML report stays self-contained and
needs no optional dependency. Layers that received no gradient are marked. A
layer whose gradient became NaN/Inf keeps the bars of its last finite step,
with a red mark saying from which step it has been non-finite.
"""

from __future__ import annotations

import html
import math
import re

# Characters XML forbids even escaped (control characters, U+FFFE/U+FFFF): one in a module name
# would make the whole SVG, and the page around it, unparsable.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _finite(v: float | None) -> bool:
    return v is not None and math.isfinite(v) and v > 0


def _label(v: float | None) -> str:
    """The value as a tooltip says it: NaN and Inf are what the user must see."""
    return "none" if v is None else f"{v:.3g}"


def _last_finite(row) -> float | None:
    """The norm a non-finite layer had at its last finite step (None when it never had one)."""
    value = getattr(row, "last_finite", None)
    return value if _finite(value) else None


def _nonfinite_mark(row, value: float) -> str:
    """`NaN from step 7`, or `nan gradient` when the step is not known (a report read from JSON)."""
    word = "NaN" if math.isnan(value) else ("Inf" if value > 0 else "-Inf")
    step = getattr(row, "nonfinite_from", None)
    return f"{word} from step {step}" if step is not None else f"{_label(value)} gradient"


def gradient_flow_svg(layers, width: int = 720, bar_height: int = 16) -> str:
    rows = list(layers)
    if not rows:
        return ""
    # Non-finite norms (a NaN run) draw the last finite step's bar, marked in words; the scale is the
    # finite values'.
    values = [v for r in rows for v in (r.grad_norm, r.grad_norm_max, _last_finite(r)) if _finite(v)]
    lo = math.floor(math.log10(min(values))) if values else -8
    hi = math.ceil(math.log10(max(values))) if values else 0
    if hi <= lo:
        hi = lo + 1
    label_w = 220
    plot_w = width - label_w - 20
    height = bar_height * len(rows) + 40

    def x(v: float | None) -> float:
        if not _finite(v):
            return 0.0
        return max(0.0, (math.log10(v) - lo) / (hi - lo) * plot_w)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="gradflow" width="{width}" height="{height}" '
        f'role="img" aria-label="gradient norm per layer">'
    ]
    for i, r in enumerate(rows):
        y = 10 + i * bar_height
        name = html.escape(_NOT_XML.sub("\ufffd", r.name if len(r.name) <= 32 else "…" + r.name[-31:]))
        colour = "#d32f2f" if not r.has_grad else "#333"
        parts.append(f'<text x="{label_w - 6}" y="{y + bar_height - 4}" font-size="11" text-anchor="end" fill="{colour}">{name}</text>')
        if not r.has_grad:
            parts.append(f'<text x="{label_w + 4}" y="{y + bar_height - 4}" font-size="11" fill="#d32f2f" class="nograd">no gradient</text>')
            continue
        odd = [v for v in (r.grad_norm, r.grad_norm_max) if v is not None and not math.isfinite(v)]
        last, last_title = r.grad_norm, f"last {_label(r.grad_norm)}"
        if odd:
            mark = _nonfinite_mark(r, odd[0])
            last = _last_finite(r)
            if last is None:  # never finite: nothing to draw but the words
                parts.append(f'<text x="{label_w + 4}" y="{y + bar_height - 4}" font-size="11" fill="#d32f2f" class="nonfinite">'
                             f'{mark}</text>')
                continue
            last_title = f"last finite {_label(last)}"
        parts.append(f'<rect x="{label_w}" y="{y + 2}" width="{x(r.grad_norm_max):.1f}" height="{bar_height - 4}" fill="#90caf9"><title>max {_label(r.grad_norm_max)}</title></rect>')
        parts.append(f'<rect x="{label_w}" y="{y + 5}" width="{x(last):.1f}" height="{bar_height - 10}" fill="#1565c0"><title>{last_title}</title></rect>')
        if odd:
            end = label_w + max(x(r.grad_norm_max), x(last))
            parts.append(f'<rect x="{end + 2:.1f}" y="{y + 2}" width="3" height="{bar_height - 4}" fill="#d32f2f"/>'
                         f'<text x="{end + 9:.1f}" y="{y + bar_height - 4}" font-size="11" fill="#d32f2f" class="nonfinite">'
                         f'{mark}</text>')
    axis_y = 10 + len(rows) * bar_height + 4
    for k in range(lo, hi + 1):
        px = label_w + (k - lo) / (hi - lo) * plot_w
        parts.append(f'<text x="{px:.1f}" y="{axis_y + 12}" font-size="10" text-anchor="middle" fill="#666">1e{k}</text>')
    parts.append("</svg>")
    return "".join(parts)


_LINE_COLOURS = ("#d32f2f", "#1565c0", "#2e7d32", "#6a1b9a")


def line_chart_svg(curves: dict[str, list[tuple[int, float]]], label: str, width: int = 720, height: int = 260) -> str:
    """Curves of (step, value) on one linear scale, one colour each, with a legend (`fix --html`)."""
    points = {name: [(s, v) for s, v in c if math.isfinite(v)] for name, c in curves.items()}
    values = [v for c in points.values() for _, v in c]
    steps = [s for c in points.values() for s, _ in c]
    if not values:
        return ""
    lo, hi = min(values), max(values)
    if hi <= lo:
        hi = lo + 1.0
    first, last = min(steps), max(steps)
    span = max(last - first, 1)
    left, top, plot_w, plot_h = 60, 20, width - 80, height - 60

    def xy(s: int, v: float) -> str:
        return f"{left + (s - first) / span * plot_w:.1f},{top + (hi - v) / (hi - lo) * plot_h:.1f}"

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="losschart" width="{width}" height="{height}" '
             f'role="img" aria-label="{html.escape(label)}">',
             f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#ccc"/>']
    for value, y in ((hi, top), (lo, top + plot_h)):
        parts.append(f'<text x="{left - 6}" y="{y + 4}" font-size="10" text-anchor="end" fill="#666">{_label(value)}</text>')
    parts.append(f'<text x="{left}" y="{top + plot_h + 14}" font-size="10" fill="#666">step {first}</text>')
    parts.append(f'<text x="{left + plot_w}" y="{top + plot_h + 14}" font-size="10" text-anchor="end" fill="#666">step {last}</text>')
    for i, (name, curve) in enumerate(points.items()):
        colour = _LINE_COLOURS[i % len(_LINE_COLOURS)]
        safe = html.escape(_NOT_XML.sub("\ufffd", name))
        for piece in _runs(curve):
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{" ".join(xy(s, v) for s, v in piece)}">'
                         f'<title>{safe}</title></polyline>')
        parts.append(f'<text x="{left + 10 + 120 * i}" y="{height - 8}" font-size="11" fill="{colour}">{safe}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _runs(curve: list[tuple[int, float]]) -> list[list[tuple[int, float]]]:
    """The curve cut where steps were not recorded (a run keeps its first and last steps and samples
    between them): a straight line across such a gap would draw values nobody measured."""
    if len(curve) < 3:
        return [curve] if curve else []
    gaps = sorted(b[0] - a[0] for a, b in zip(curve, curve[1:]))
    usual = max(gaps[len(gaps) // 2], 1)
    pieces = [[curve[0]]]
    for before, point in zip(curve, curve[1:]):
        if point[0] - before[0] > 3 * usual:
            pieces.append([])
        pieces[-1].append(point)
    return pieces
