"""Which layer each parameter of an optimizer belongs to, computed once per optimizer.

A layer is a module that owns parameters directly (`encoder.0`), named as the
user's model names it. Parameters outside every known model keep their own name.
"""

from __future__ import annotations

import math

import torch

from graddoctor.graph.naming import ModelIndex, unwrap


class Layout:
    """Parameters of one optimizer grouped by layer, in the model's registration order."""

    def __init__(self, params: list[torch.Tensor], index: ModelIndex | None) -> None:
        self.params = params
        owners = _owning_modules(index)
        self.layer_keys: list[int] = []  # id of the owning module (or of a loose parameter)
        self.layer_names: list[str] = []
        self.layer_numel: list[int] = []
        self.layer_of: list[int] = []  # param position -> layer position
        self.param_names: list[str] = []
        position: dict[str, int] = {}
        for p in params:
            name = index.name(p) if index is not None else f"param{len(self.param_names)}"
            self.param_names.append(name)
            layer = index.module_of.get(id(p)) if index is not None else None
            if not layer:  # a parameter outside every known model is its own layer
                layer = name
            if layer not in position:
                position[layer] = len(self.layer_names)
                self.layer_keys.append(owners.get(id(p), id(p)))
                self.layer_names.append(layer)
                self.layer_numel.append(0)
            self.layer_of.append(position[layer])
            self.layer_numel[position[layer]] += p.numel()
        self.key_of = {id(p): self.layer_keys[i] for p, i in zip(params, self.layer_of)}  # param id -> layer key
        self.all_positions = list(range(len(params)))
        self.all_layers = set(range(len(self.layer_names)))
        self.shape: tuple = ()
        self.sparse = False  # some gradients are sparse: filtered out each step
        self.zero_steps = [0] * len(params)  # steps each gradient was present and exactly zero (GD111)
        self.moved = [False] * len(params)  # whether each gradient was ever non-zero
        self.optimizer = lambda: None

    def __len__(self) -> int:
        return len(self.layer_names)

    def note_zero_gradients(self, positions: list[int], norms: list[float]) -> None:
        """Count, per parameter, the steps its gradient was present and exactly zero (GD111 reads them)."""
        zero, moved = self.zero_steps, self.moved
        for pos, norm in zip(positions, norms):
            if norm == 0.0:
                zero[pos] += 1
            else:
                moved[pos] = True

    def rms(self, layer: int, norm: float) -> float:
        return norm / math.sqrt(max(1, self.layer_numel[layer]))


def _owning_modules(index: ModelIndex | None) -> dict[int, int]:
    """param id -> id of the module that owns it directly: a layer's identity, whatever
    name the model is given later."""
    out: dict[int, int] = {}
    if index is None:
        return out
    for model in index.models.values():
        for module in model.modules():
            for p in module._parameters.values():
                if p is not None:
                    out.setdefault(id(p), id(module))
    return out


def layer_names_now(models: dict) -> list[tuple[int, str, int, str]]:
    """(module id, name, parameter count, class name) of every module that owns parameters,
    named as now."""
    out = []
    for label, model in models.items():
        for name, module in unwrap(model).named_modules():
            own = [p for p in module._parameters.values() if p is not None]
            if own:
                out.append((id(module), f"{label}.{name}" if name else label, len(own), type(module).__name__))
    return out

