"""Which models a session watches when none were given: the root modules alive now."""

from __future__ import annotations

import gc
import sys

import torch
from torch import nn

from graddoctor.locate import frame_locals, is_user_file

_is_compiling = torch.compiler.is_compiling


def root_modules() -> list[nn.Module]:
    """Modules alive now that own parameters and are nobody's registered submodule.

    Modules kept in a plain list or dict of another module are not roots: they
    belong to that module, unregistered (GD105).
    """
    if _is_compiling():  # never inside a dynamo trace: gc.get_objects cannot be traced
        return []
    # type() rather than isinstance(): isinstance reads __class__, which some
    # lazily deprecated torch objects answer with a FutureWarning.
    module_type = nn.Module
    modules = [o for o in gc.get_objects() if issubclass(type(o), module_type)]
    children: set[int] = set()
    for module in modules:
        for child in module.modules():
            if child is not module:
                children.add(id(child))
        for value in vars(module).values():
            if isinstance(value, (list, tuple, dict)):
                items = value.values() if isinstance(value, dict) else value
                for item in list(items)[:256]:
                    if isinstance(item, nn.Module):
                        children.add(id(item))
                        children.update(id(c) for c in item.modules())
    roots = []
    for module in modules:
        if id(module) in children:
            continue
        if next(module.parameters(), None) is None:
            continue
        roots.append(module)
    return roots


def label_models(models: list[nn.Module], namespace: dict | None, known: dict[int, str] | None = None,
                 pinned: dict[int, str] | None = None, retired: set[str] | None = None) -> dict[str, nn.Module]:
    """Name each model by the script's global that holds it, else by the variable or attribute seen
    holding it in the user's frames (`known`), else by its class.

    `pinned` (module id -> label) keeps every label as first given, and is filled with the new
    ones: a parameter's name stays the same from the first step to the end of a run, also when
    the script's globals are gone or another model appears. Labels in `retired` (of models since
    freed) are not given again."""
    pinned = {} if pinned is None else pinned
    names = names_in_namespace({id(m) for m in models}, namespace)
    for key, name in (known or {}).items():
        names.setdefault(key, name)
    out: dict[str, nn.Module] = {}
    taken = {label for key, label in pinned.items() if key in {id(m) for m in models}} | (retired or set())
    for module in models:
        label = pinned.get(id(module))
        if label is None:
            label = names.get(id(module)) or type(module).__name__
            base, n = label, 2
            while label in out or label in taken:
                label = f"{base}#{n}"
                n += 1
            pinned[id(module)] = label
            taken.add(label)
        out[label] = module
    return out


def names_in_namespace(wanted: set[int], namespace: dict | None, kind: type = nn.Module) -> dict[int, str]:
    """Object id -> the first public global of the script (`namespace`) that holds it."""
    names: dict[int, str] = {}
    for key, value in list((namespace or {}).items()):
        if isinstance(value, kind) and not key.startswith("_") and id(value) in wanted:
            names.setdefault(id(value), key)
    return names


def names_in_user_frames(wanted: set[int] | None, frames: int = 4) -> dict[int, str]:
    """Module id -> the name the user's code holds it by: a variable (`aux`), or an attribute of a
    variable (`trainer.encoder`; `self.encoder` is named `encoder`), innermost user frames first.
    Of the modules whose ids are in `wanted`, or of every module when it is None."""
    out: dict[int, str] = {}
    if _is_compiling():  # never inside a dynamo trace: frame introspection breaks it
        return out
    frame = sys._getframe(1)
    seen = 0
    while frame is not None and seen < frames:
        if is_user_file(frame.f_code.co_filename):
            seen += 1
            for key, value in frame_locals(frame).items():
                if key.startswith("_"):
                    continue
                if isinstance(value, nn.Module):
                    if wanted is None or id(value) in wanted:
                        out.setdefault(id(value), key)
                elif hasattr(value, "__dict__") and not isinstance(value, type):
                    for attr, item in list(getattr(value, "__dict__", {}).items())[:64]:
                        if (isinstance(item, nn.Module) and (wanted is None or id(item) in wanted)
                                and not attr.startswith("_")):
                            out.setdefault(id(item), attr if key == "self" else f"{key}.{attr}")
        frame = frame.f_back
    del frame  # hold no frame (and so none of its locals) past this call
    return out
