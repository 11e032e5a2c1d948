"""GD502: one module object placed several times in a ModuleList, Sequential or ModuleDict.

Read from the module tree when the session learns its models (first backward,
first step of an optimizer): each container's own entries, compared by
identity. Only modules that own parameters count (one `nn.ReLU()` reused in
a Sequential shares nothing), and only repeats inside one container: the same
module under two attribute names is how weights are shared on purpose.
"""

from __future__ import annotations

from torch import nn

from graddoctor.finding import Finding
from graddoctor.locate import Location
from graddoctor.lossdata import patches
from graddoctor.lossdata.places import attribute_line
from graddoctor.rules import make


class SharedCopies:
    def __init__(self) -> None:
        self.found: dict[int, Finding] = {}
        self._seen: set[int] = set()

    def check_models(self, models: dict[str, nn.Module], step: int) -> None:
        for label, root in models.items():
            if id(root) in self._seen:
                continue
            self._seen.add(id(root))
            owners = {id(child): (module, attr) for module in root.modules() for attr, child in module._modules.items()
                      if child is not None}
            for prefix, container in root.named_modules():
                if isinstance(container, patches.CONTAINERS) and id(container) not in self.found:
                    self._check(container, prefix, label, owners, step)

    def _check(self, container: nn.Module, prefix: str, label: str, owners: dict, step: int) -> None:
        entries: dict[int, list[str]] = {}
        path = f"{label}.{prefix}" if prefix else label  # named as every layer is: `model.blocks.0`
        for key, child in container._modules.items():
            if child is not None and next(child.parameters(), None) is not None:
                entries.setdefault(id(child), []).append(f"{path}.{key}")
        repeated = [names for names in entries.values() if len(names) > 1]
        if not repeated:
            return
        names = repeated[0]
        module = container._modules[names[0].rsplit(".", 1)[-1]]
        kind = type(container).__name__
        where = self._built_where(container, owners)
        params = sum(p.numel() for p in module.parameters())
        subjects = [n for group in repeated for n in group]
        message = (f"`{path}` ({kind}) holds the same {type(module).__name__} object {len(names)} times "
                   f"({', '.join(f'`{n}`' for n in names[:6])}{', ...' if len(names) > 6 else ''}): these "
                   f"{len(names)} \"layers\" are one set of {params:,} weights applied {len(names)} times, not "
                   f"{len(names)} layers.")
        if len(repeated) > 1:
            message += f" {len(repeated) - 1} more module(s) repeat in it as well."
        evidence = {"container": path, "times": len(names), "shared_parameters": params, "repeated_modules": len(repeated)}
        self.found[id(container)] = make("GD502", message, subjects=subjects, step=step, evidence=evidence,
                                         **where.shown())

    def _built_where(self, container: nn.Module, owners: dict) -> Location:
        built = patches.built_at.get(container)
        if built is not None and built.file:
            return built
        owner = owners.get(id(container))
        line = attribute_line(*owner) if owner is not None else None
        return line or Location(None, None)

    def findings(self) -> list[Finding]:
        return list(self.found.values())
