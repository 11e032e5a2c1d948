"""The gradient-flow bar chart as an image file, through matplotlib (an optional extra)."""

from __future__ import annotations

import math

from graddoctor.extras import install_command

# Sized for a screen: 1200x700 pixels for up to ~50 layers, wider with more, never past 2400.
_DPI = 100
_MIN_W, _MAX_W, _HEIGHT = 12.0, 24.0, 7.0
_MAX_LABELS = 80  # more tick labels than this overlap; every k-th layer is named instead
_MANY = 400  # past this many layers, bars are drawn as one outline (matplotlib draws 10,000 patches for minutes)


def _finite(v: float | None) -> float:
    return v if v is not None and math.isfinite(v) and v > 0 else 0.0


def plot_layers(layers, path: str, mean: dict[str, float] | None = None) -> str:
    """Bars per layer: the max gradient norm over steps, and the mean (or last) one;
    layers that never received a gradient are marked in red, NaN/Inf ones in orange."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(f"plot() needs matplotlib: {install_command('plot')}") from exc
    rows = list(layers)
    names = [_short(r.name) for r in rows]
    inner_label = "mean over steps" if mean is not None else "last step"
    raw_inner = [(mean or {}).get(r.name) if mean is not None else r.grad_norm for r in rows]
    inner = [_finite(v) for v in raw_inner]
    peak = [_finite(r.grad_norm_max) for r in rows]
    positive = [v for v in inner + peak if v > 0]
    floor = min(positive) / 10 if positive else 1e-12
    width = min(_MAX_W, max(_MIN_W, 0.22 * len(rows) + 2))
    fig, ax = plt.subplots(figsize=(width, _HEIGHT), dpi=_DPI)
    try:
        xs = list(range(len(rows)))
        many = len(rows) > _MANY
        _bars(ax, xs, [max(v, floor) for v in peak], floor, many, color="#90caf9", label="max over steps")
        _bars(ax, xs, [max(v, floor) for v in inner], floor, many, color="#1565c0", width=0.5, label=inner_label)
        # Marked layers are drawn as one bar series per colour, not one patch each:
        # a 10,000-layer model would otherwise take minutes to draw.
        top = max(positive) * 10 if positive else 1.0
        marks: dict[str, list[int]] = {"#ffcdd2": [], "#ffe0b2": []}
        labels: list[tuple[int, str]] = []
        for i, r in enumerate(rows):
            odd = [v for v in (raw_inner[i], r.grad_norm_max) if v is not None and not math.isfinite(v)]
            if not r.has_grad or odd:
                marks["#ffcdd2" if not r.has_grad else "#ffe0b2"].append(i)
                labels.append((i, "no grad" if not r.has_grad else f"{odd[0]} grad"))
        for colour, where in marks.items():
            if where:
                chosen = set(where)
                heights = [top if i in chosen else floor for i in xs] if many else [top] * len(where)
                _bars(ax, xs if many else where, heights, floor, many, color=colour, width=1.0, zorder=0)
        if len(rows) <= _MAX_LABELS:
            for i, text in labels:
                ax.annotate(text, (i, floor), rotation=90, color="#d32f2f", ha="center", va="bottom", fontsize=8)
        step = max(1, math.ceil(len(rows) / _MAX_LABELS))
        ax.set_xticks(xs[::step], names[::step], rotation=90, fontsize=8)
        if rows:
            ax.set_xlim(-0.5, len(rows) - 0.5)
        ax.set_yscale("log")
        ax.set_ylabel("gradient norm")
        ax.set_xlabel("layer" if step == 1 else f"layer (every {step}th named)")
        ax.set_title("Gradient flow")
        ax.legend(loc="upper right")
        fig.tight_layout()
        fig.savefig(path, dpi=_DPI)
    finally:
        plt.close(fig)
    return path


def _bars(ax, xs, heights, floor, many: bool, width: float = 0.8, **style) -> None:
    """Bars from `floor` up; past _MANY layers one filled outline instead of one patch per layer."""
    if many:
        edges = [x - 0.5 for x in xs] + [xs[-1] + 0.5]
        ax.stairs(heights, edges, baseline=floor, fill=True, **style)
    else:
        ax.bar(xs, [h - floor for h in heights], bottom=floor, width=width, **style)


def _short(name: str) -> str:
    """A tick label: long qualified names keep their end, which names the layer."""
    # Control and private-use characters have no glyph in any font: matplotlib would draw boxes and
    # warn once per character. Module names can hold them only by accident (keys of a ModuleDict).
    name = "".join(c if c.isprintable() else "?" for c in name) or "(unnamed)"
    return name if len(name) <= 40 else "…" + name[-39:]
