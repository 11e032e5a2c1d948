"""Where the user defined a module: the line the GD5xx judges point at for a layer."""

from __future__ import annotations

import inspect

from torch import nn

from graddoctor.locate import Location, is_user_file
from graddoctor.lossdata import patches


def defined_at(module: nn.Module, owners: dict) -> Location | None:
    """The line that made `module` part of its parent: the container's construction for a
    Sequential/ModuleList entry, else `self.<attr> = ...` in the parent's `__init__`.
    `owners` maps id(module) -> (parent, attribute name)."""
    owner = owners.get(id(module))
    if owner is None:
        return None
    parent, attr = owner
    built = patches.built_at.get(parent)
    if built is not None and built.file and isinstance(parent, patches.CONTAINERS):
        return built
    return attribute_line(parent, attr)


def attribute_line(owner: nn.Module, attr: str) -> Location | None:
    """The line of `self.<attr> = ...` in the owner class's `__init__` (the user's source), if found."""
    for cls in type(owner).__mro__:
        init = cls.__dict__.get("__init__")
        if init is None:
            continue
        try:
            source_file = inspect.getsourcefile(init)
            lines, start = inspect.getsourcelines(init)
        except (OSError, TypeError):
            continue
        if not is_user_file(source_file):
            return None
        needle = f"self.{attr}"
        for offset, text in enumerate(lines):
            stripped = text.strip()
            if stripped.startswith(needle) and stripped[len(needle):].lstrip().startswith(("=", ":")):
                return Location(source_file, start + offset)
    return None
