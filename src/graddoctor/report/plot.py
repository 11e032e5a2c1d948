"""The gradient-flow bar chart as an image file, through matplotlib (an optional extra)."""

from __future__ import annotations


def plot_layers(layers, path: str) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("Report.plot() needs matplotlib: pip install 'graddoctor[plot]'") from exc
    rows = list(layers)
    names = [r.name for r in rows]
    last = [r.grad_norm or 0.0 for r in rows]
    peak = [r.grad_norm_max or 0.0 for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(rows) + 2), 4))
    xs = range(len(rows))
    ax.bar(xs, peak, color="#90caf9", label="max over steps")
    ax.bar(xs, last, color="#1565c0", width=0.5, label="last step")
    for i, r in enumerate(rows):
        if not r.has_grad:
            ax.annotate("no grad", (i, 0), rotation=90, color="#d32f2f", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(xs), names, rotation=90, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("gradient norm")
    ax.set_title("Gradient flow")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
