"""One row per module that owns parameters: the `layers` part of a report."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# JSON has no NaN or Infinity: a NaN run's norms are written as these strings (schema.json says so),
# never as the bare `NaN` Python's json would emit, which no strict parser accepts.
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _number_out(value: float | None) -> float | str | None:
    if value is None or math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _number_in(value: float | str | None) -> float | None:
    return _NON_FINITE[value] if isinstance(value, str) else value


@dataclass
class LayerRow:
    name: str
    params: int  # parameter tensors the module owns directly
    grad_norm: float | None  # at the last observed step
    grad_norm_max: float | None  # over all observed steps
    update_ratio: float | None  # |update| / |weight| at the last measured step
    has_grad: bool  # received a gradient at least once
    # Not in the JSON schema, for the renderers: the module's class, shown beside the name, and on a
    # run whose gradients became NaN/Inf, the last finite norm and the step they stopped being finite.
    kind: str | None = None
    last_finite: float | None = None
    nonfinite_from: int | None = None

    @property
    def label(self) -> str:
        """The name with the class beside it where known: `model.0 (Linear)`."""
        return f"{self.name} ({self.kind})" if self.kind else self.name

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "params": self.params,
            "grad_norm": _number_out(self.grad_norm),
            "grad_norm_max": _number_out(self.grad_norm_max),
            "update_ratio": _number_out(self.update_ratio),
            "has_grad": self.has_grad,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "LayerRow":
        numbers = {k: _number_in(data.get(k)) for k in ("grad_norm", "grad_norm_max", "update_ratio")}
        return cls(name=data.get("name"), params=data.get("params"), has_grad=data.get("has_grad"), **numbers)
