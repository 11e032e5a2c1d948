"""Per-layer gradient statistics, measured once per optimizer step with fused norms.

One `torch._foreach_norm` over every gradient and a single host transfer per
measured step: no per-parameter Python loop over tensors, no per-module hook.
"""

from __future__ import annotations

import torch

from graddoctor.report.layers import LayerRow
from graddoctor.session.observer import Observer, StepEvent


class LayerStats(Observer):
    """Keeps, per module that owns parameters: last and max gradient norm, update ratio."""

    name = "layers"

    def __init__(self, ratio_every: int = 10) -> None:
        self.ratio_every = ratio_every
        self._groups: list[tuple[str, list[torch.nn.Parameter]]] | None = None
        self._last: dict[str, float] = {}
        self._max: dict[str, float] = {}
        self._has_grad: set[str] = set()
        self._ratio: dict[str, float] = {}
        self._before: list[torch.Tensor] | None = None
        self.measured = 0

    def _layer_groups(self) -> list[tuple[str, list[torch.nn.Parameter]]]:
        if self._groups is None:
            groups = []
            models = self.session.models()
            prefix = len(models) > 1
            for label, model in models.items():
                for name, module in model.named_modules():
                    own = [p for p in module._parameters.values() if p is not None]
                    if own:
                        full = f"{label}.{name}" if prefix and name else (label if prefix else name or type(model).__name__)
                        groups.append((full, own))
            self._groups = groups
        return self._groups

    def before_step(self, event: StepEvent) -> None:
        groups = self._layer_groups()
        owned = {id(p) for p in _params_of(event.optimizer)}
        names, grads, counts = [], [], []
        for name, params in groups:
            present = [p.grad for p in params if id(p) in owned and p.grad is not None]
            if present:
                names.append(name)
                grads.extend(g.detach() for g in present)
                counts.append(len(present))
        if not grads:
            return
        with torch.no_grad():
            norms = torch._foreach_norm(grads)
            squared = torch.stack([n.float() for n in norms]) ** 2
            per_layer = torch.split(squared, counts)
            values = torch.stack([s.sum() for s in per_layer]).sqrt().tolist()
        for name, value in zip(names, values):
            self._last[name] = value
            self._max[name] = max(self._max.get(name, 0.0), value)
            if value > 0:
                self._has_grad.add(name)
            else:
                self._has_grad.add(name)
        self.measured += 1
        if self.ratio_every and (self.measured - 1) % self.ratio_every == 0:
            self._before = [p.detach().clone() for p in _params_of(event.optimizer)]
        else:
            self._before = None

    def after_step(self, event: StepEvent) -> None:
        if self._before is None:
            return
        params = _params_of(event.optimizer)
        before, self._before = self._before, None
        index = {id(p): i for i, p in enumerate(params)}
        with torch.no_grad():
            for name, group in self._layer_groups():
                idx = [index[id(p)] for p in group if id(p) in index]
                if not idx:
                    continue
                delta = torch.stack([(params[i].detach() - before[i]).float().norm() for i in idx]).norm()
                weight = torch.stack([before[i].float().norm() for i in idx]).norm()
                if float(weight) > 0:
                    self._ratio[name] = float(delta / weight)

    def rows(self) -> list[LayerRow]:
        rows = []
        for name, params in self._layer_groups() if self._groups is not None or self._can_group() else []:
            rows.append(
                LayerRow(
                    name=name,
                    params=len(params),
                    grad_norm=self._last.get(name),
                    grad_norm_max=self._max.get(name),
                    update_ratio=self._ratio.get(name),
                    has_grad=name in self._has_grad,
                )
            )
        return rows

    def _can_group(self) -> bool:
        try:
            return bool(self.session.models())
        except Exception:
            return False


def _params_of(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    return [p for group in optimizer.param_groups for p in group["params"]]
