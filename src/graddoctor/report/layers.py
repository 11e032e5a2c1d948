"""One row per module that owns parameters: the `layers` part of a report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graddoctor.json_numbers import number_in as _number_in, number_out as _number_out


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
