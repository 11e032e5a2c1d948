"""GradFlowMonitor: per-layer gradient norms over steps, as a table, a chart and TensorBoard scalars."""

from __future__ import annotations

import math

import torch
from torch import nn

from graddoctor.numerics.layers import LayerStats
from graddoctor.numerics.options import NumericsOptions
from graddoctor.session.session import Session, SessionHandle


class GradFlowMonitor(SessionHandle):
    """Records the gradient norm of every layer at every optimizer step.

        monitor = GradFlowMonitor(model)
        with monitor:
            train()
        print(monitor.table())
        monitor.plot("gradflow.png")

    Measured just before each optimizer step with one fused norm over all
    gradients (see numerics/meter.py); the last `history` steps are kept.
    """

    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer | None = None, *, history: int = 256) -> None:
        self.model = model
        self.stats = LayerStats(NumericsOptions(history=history, layer_every=1))  # every step, for the chart
        self.session = Session([self.stats], models=model, optimizers=optimizer)
        self._written: dict[str, int] = {}


    def _settle(self) -> None:
        self.stats.meter.drain(ready_only=False)

    def layers(self) -> list[str]:
        return [row.name for row in self.stats.layer_rows()]

    def history(self) -> dict[str, list[tuple[int, float]]]:
        """Per layer: (step, gradient norm) for the kept steps."""
        self._settle()
        names = self.stats.record.names()
        out: dict[str, list[tuple[int, float]]] = {names.get(key, str(key)): [] for key in self.stats.record.layers}
        for step, values in self.stats.record.history:
            for key, norm in values:
                out[names.get(key, str(key))].append((step, norm))
        return out

    def rows(self):
        self._settle()
        return self.stats.layer_rows()

    def table(self) -> str:
        """A plain-text table: layer, mean and max gradient norm over steps, last, update/weight."""
        self._settle()
        rows = self.stats.layer_rows()
        by_name = {name: self.stats.record.layers.get(key) for key, name in self.stats.record.names().items()}
        width = max([len("layer")] + [len(r.name) for r in rows])
        lines = [f"{'layer':<{width}}  {'mean':>10}  {'max':>10}  {'last':>10}  {'update/w':>10}"]
        for r in rows:
            track = by_name.get(r.name)
            if track is None or not track.has_grad:
                lines.append(f"{r.name:<{width}}  {'no gradient':>10}")
                continue
            mean = track.total / track.count if track.count else None
            lines.append(f"{r.name:<{width}}  {_fmt(mean)}  {_fmt(track.max)}  {_fmt(track.last)}  {_fmt(track.ratio)}")
        return "\n".join(lines)

    def plot(self, path: str) -> str:
        """The gradient-flow chart (mean and max norm per layer, log scale) as an image file."""
        from graddoctor.report.plot import plot_layers

        self._settle()
        names = self.stats.record.names()
        mean = {names.get(k, str(k)): t.total / t.count for k, t in self.stats.record.layers.items() if t.count}
        return plot_layers(self.stats.layer_rows(), path, mean=mean)

    def to_tensorboard(self, writer, step: int | None = None, histograms: bool = True) -> None:
        """Write `grad_norm/<layer>` scalars for each recorded step not yet written, and
        histograms of the current gradients per layer at `step` (or the last step)."""
        self._settle()
        last_step = 0
        for name, series in self.history().items():
            done = self._written.get(name, -1)
            for s, value in series:
                last_step = max(last_step, s)
                if s > done and math.isfinite(value):
                    writer.add_scalar(f"grad_norm/{name}", value, s)
                    self._written[name] = s
        if histograms:
            at = last_step if step is None else step
            for name, module in self.model.named_modules():
                grads = [p.grad.detach().flatten() for p in module._parameters.values() if p is not None and p.grad is not None]
                if grads:
                    writer.add_histogram(f"grad/{name or type(self.model).__name__}", torch.cat(grads).float().cpu(), at)


def _fmt(value: float | None) -> str:
    return f"{'-':>10}" if value is None else f"{value:>10.3g}"
