"""GD105 unregistered-parameters: tensors that reach the loss but that model.parameters() does not list.

Modules kept in a plain list or dict, or a plain tensor attribute with
requires_grad=True: the graph walk reaches them, the module tree does not.
"""

from __future__ import annotations

import torch

from graddoctor.finding import Finding
from graddoctor.graph.naming import ModelIndex, attribute_location
from graddoctor.graph.phrases import name_list
from graddoctor.locate import Location
from graddoctor.rules import make


def unregistered_parameters(
    index: ModelIndex, reached: set[int], in_optimizer: set[int], where: Location, step: int | None
) -> list[Finding]:
    out: list[Finding] = []
    groups: dict[tuple[int, str], list[torch.Tensor]] = {}
    for tid, tensor in index.hidden_tensors.items():
        if tid in reached:
            holding = index.hidden[tid]
            groups.setdefault((id(holding.holder), holding.attr), []).append(tensor)
    for tensors in groups.values():
        out.append(_unregistered(index, tensors, in_optimizer, where, step))
    return out


def _unregistered(
    index: ModelIndex, tensors: list[torch.Tensor], in_optimizer: set[int], where: Location, step: int | None
) -> Finding:
    holding = index.hidden[id(tensors[0])]
    names = [index.hidden[id(t)].name for t in tensors]
    owner = f"{type(holding.holder).__name__}.{holding.attr}"
    if holding.container == "tensor":
        how = f"a plain tensor attribute `{owner}` with requires_grad=True"
        fix = f"Declare it as `self.{holding.attr} = nn.Parameter(...)` so that model.parameters() lists it."
    else:
        how = f"modules kept in a plain Python {holding.container} `{owner}`"
        wrapper = "nn.ModuleDict" if holding.container == "dict" else "nn.ModuleList"
        fix = (
            f"Wrap it: `self.{holding.attr} = {wrapper}(...)`, so that model.parameters(), "
            ".to() and state_dict() see it."
        )
    optimized = all(id(t) in in_optimizer for t in tensors)
    one = len(names) == 1
    consequence = (
        ("It reaches the loss and gets gradients" if one else "They reach the loss and get gradients")
        + f", but model.parameters() does not list {'it' if one else 'them'}"
        + ("" if optimized else ", so an optimizer built from it never updates " + ("it" if one else "them"))
        + f", and .to(device) and state_dict() skip {'it' if one else 'them'}."
    )
    loc = attribute_location(holding.holder, holding.attr)
    return make(
        "GD105",
        f"{name_list(names)} {'is' if len(names) == 1 else 'are'} held in {how}, not registered "
        f"with the module. {consequence}",
        hint=fix,
        subjects=names,
        step=step,
        evidence={"unregistered_tensors": len(names), "container": holding.container, "reached_by_backward": True,
                  "in_optimizer": optimized},
        **(loc.shown() if loc else where.shown()),
    )
