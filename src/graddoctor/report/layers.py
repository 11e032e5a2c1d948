"""One row per module that owns parameters: the `layers` part of a report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class LayerRow:
    name: str
    params: int  # parameter tensors the module owns directly
    grad_norm: float | None  # at the last observed step
    grad_norm_max: float | None  # over all observed steps
    update_ratio: float | None  # |update| / |weight| at the last measured step
    has_grad: bool  # received a gradient at least once

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "params": self.params,
            "grad_norm": self.grad_norm,
            "grad_norm_max": self.grad_norm_max,
            "update_ratio": self.update_ratio,
            "has_grad": self.has_grad,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "LayerRow":
        return cls(**{k: data.get(k) for k in ("name", "params", "grad_norm", "grad_norm_max", "update_ratio", "has_grad")})
