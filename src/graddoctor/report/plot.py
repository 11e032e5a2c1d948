"""The gradient-flow bar chart as an image file, through matplotlib (an optional extra)."""

from __future__ import annotations


def plot_layers(layers, path: str, mean: dict[str, float] | None = None) -> str:
    """Bars per layer: the max gradient norm over steps, and the mean (or last) one;
    layers that never received a gradient are marked in red."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plot() needs matplotlib: pip install 'graddoctor[plot]'") from exc
    rows = list(layers)
    names = [r.name for r in rows]
    inner_label = "mean over steps" if mean is not None else "last step"
    inner = [(mean or {}).get(r.name, 0.0) if mean is not None else (r.grad_norm or 0.0) for r in rows]
    peak = [r.grad_norm_max or 0.0 for r in rows]
    positive = [v for v in inner + peak if v > 0]
    floor = min(positive) / 10 if positive else 1e-12
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(rows) + 2), 4))
    xs = range(len(rows))
    ax.bar(xs, [max(v, floor) for v in peak], color="#90caf9", label="max over steps")
    ax.bar(xs, [max(v, floor) for v in inner], color="#1565c0", width=0.5, label=inner_label)
    for i, r in enumerate(rows):
        if not r.has_grad:
            ax.axvspan(i - 0.5, i + 0.5, color="#ffcdd2", zorder=0)
            ax.annotate("no grad", (i, floor), rotation=90, color="#d32f2f", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(xs), names, rotation=90, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("gradient norm")
    ax.set_title("Gradient flow")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
