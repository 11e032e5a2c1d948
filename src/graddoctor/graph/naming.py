"""Name the tensors a graph reaches, the way the user names them.

Parameters get their `named_parameters()` names under the model's label, the
user's variable (`model.0.weight`), whatever the number of models: a name never
changes when a second model appears. Tensors and modules that
require grad but hide from `parameters()` (in a plain list, dict, or as a bare
tensor attribute) are found by scanning module attributes, so a finding can say
"`model.blocks[0].weight`, held in the plain list `Net.blocks`".
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache

import torch
from torch import nn

from graddoctor.locate import Location, is_user_file

_MODULE_INTERNALS = frozenset(vars(nn.Module()).keys())
_MAX_DEPTH = 3


@dataclass(frozen=True)
class Holding:
    """A tensor that requires grad but that `parameters()` does not list."""

    name: str  # e.g. "model.encoder.blocks[0].weight"
    holder: nn.Module  # the module whose attribute holds it
    holder_name: str  # "encoder"
    attr: str  # "blocks"
    container: str  # "list", "dict", "tuple" or "tensor"


class ModelIndex:
    """Parameter names and hidden (unregistered) tensors of one or more models."""

    def __init__(self, models: dict[str, nn.Module]):
        self.models = models
        self.names: dict[int, str] = {}
        self.params: dict[int, nn.Parameter] = {}
        self.owner: dict[int, str] = {}  # param id -> root label
        self.module_of: dict[int, str] = {}  # param id -> owning submodule path
        self.hidden: dict[int, Holding] = {}
        self.hidden_tensors: dict[int, torch.Tensor] = {}
        self._stands_for: dict[int, int] = {}  # id of FSDP2's unsharded copy -> id of the parameter
        for label, model in models.items():
            model = unwrap(model)
            prefix = f"{label}."
            for mod_name, module in model.named_modules(remove_duplicate=False):
                for p_name, param in module._parameters.items():
                    if param is None or id(param) in self.names:
                        continue
                    full = f"{mod_name}.{p_name}" if mod_name else p_name
                    self.names[id(param)] = prefix + full
                    self.params[id(param)] = param
                    self.owner[id(param)] = label
                    self.module_of[id(param)] = prefix + mod_name if mod_name else label
            for mod_name, module in model.named_modules():
                self._scan_hidden(module, prefix + mod_name if mod_name else label)
            self._alias_fsdp2(model)

    def _alias_fsdp2(self, model: nn.Module) -> None:
        """FSDP2 (`fully_shard`) registers a sharded DTensor per parameter (the one the optimizer
        holds), but forward runs on an unsharded copy: that copy is what the loss's graph reaches.
        Both get the user's name; `reached()` counts the parameter as reached when its copy is."""
        for sharded, unsharded in _fsdp2_pairs(model):
            if unsharded is None:
                continue
            key = id(sharded) if id(sharded) in self.names else id(unsharded)
            if key not in self.names:
                continue
            for table in (self.names, self.owner, self.module_of):
                table[id(sharded)] = table[id(unsharded)] = table[key]
            self.params.pop(id(unsharded), None)
            self.params[id(sharded)] = sharded
            self._stands_for[id(unsharded)] = id(sharded)

    def reached(self, leaf_ids: set[int]) -> set[int]:
        """The ids a backward reached, with each FSDP2 parameter reached through its unsharded copy."""
        if not self._stands_for:
            return leaf_ids
        return leaf_ids | {self._stands_for[i] for i in leaf_ids if i in self._stands_for}

    def _scan_hidden(self, module: nn.Module, module_name: str) -> None:
        for attr, value in vars(module).items():
            if attr in _MODULE_INTERNALS:
                continue
            for path, tensor, kind in _hidden_tensors(value, attr, 0):
                if id(tensor) in self.names or id(tensor) in self.hidden:
                    continue
                name = f"{module_name}.{path}" if module_name else path
                self.hidden[id(tensor)] = Holding(name, module, module_name, attr, kind)
                self.hidden_tensors[id(tensor)] = tensor

    def name(self, tensor: torch.Tensor) -> str:
        key = id(tensor)
        if key in self.names:
            return self.names[key]
        if key in self.hidden:
            return self.hidden[key].name
        return f"<tensor of shape {tuple(tensor.shape)}>"

    def trainable(self) -> list[nn.Parameter]:
        return [p for p in self.params.values() if p.requires_grad]


def _fsdp2_pairs(model: nn.Module) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
    """(sharded parameter, its unsharded copy or None before the first forward) for every
    parameter `fully_shard` manages in `model`; empty when FSDP2 is not in use."""
    import sys

    if "torch.distributed.fsdp" not in sys.modules:  # never import distributed code on its account
        return []
    pairs = []
    for module in model.modules():
        get_state = getattr(module, "_get_fsdp_state", None)
        if get_state is None:
            continue
        try:
            groups = get_state()._fsdp_param_groups
        except (AttributeError, AssertionError, RuntimeError):  # another torch's internals (or no state yet):
            continue  # names stay the registered ones
        for group in groups:
            for param in group.fsdp_params:
                pairs.append((param.sharded_param, getattr(param, "_unsharded_param", None)))
    return pairs


_WRAPPERS = frozenset({"DistributedDataParallel", "DataParallel", "OptimizedModule"})


def unwrap(model: nn.Module) -> nn.Module:
    """The user's model inside (Distributed)DataParallel or `torch.compile` wrappers, named as
    they name it (`aux.weight`, not `module.aux.weight` or `_orig_mod.aux.weight`)."""
    for _ in range(4):  # DDP(torch.compile(model)) and the like nest a few levels at most
        name = type(model).__name__
        inner = getattr(model, "_orig_mod" if name == "OptimizedModule" else "module", None)
        if name not in _WRAPPERS or not isinstance(inner, nn.Module):
            return model
        model = inner
    return model


def _hidden_tensors(value, path: str, depth: int, kind: str | None = None):
    """Tensors requiring grad inside an attribute value that nn.Module does not register."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, torch.Tensor):
        if value.requires_grad and value.is_leaf:
            yield path, value, kind or "tensor"
    elif isinstance(value, nn.Module):
        if depth == 0:
            return  # a registered submodule lives in _modules, not in __dict__
        for p_name, param in value.named_parameters():
            if param.requires_grad:
                yield f"{path}.{p_name}", param, kind
    elif isinstance(value, (list, tuple)):
        container = kind or type(value).__name__
        for i, item in enumerate(value[:256]):
            yield from _hidden_tensors(item, f"{path}[{i}]", depth + 1, container)
    elif isinstance(value, dict):
        container = kind or "dict"
        for i, (k, item) in enumerate(value.items()):
            if i >= 256:
                break
            yield from _hidden_tensors(item, f"{path}[{k!r}]", depth + 1, container)


def attribute_location(holder: nn.Module, attr: str) -> Location | None:
    """Where `self.<attr> = ...` is written in the holder's class (its __init__ usually)."""
    for cls in type(holder).__mro__:
        if cls in (nn.Module, object):
            break
        found = _assignment_in_class(cls, attr)
        if found is not None:
            return found
    return None


@lru_cache(maxsize=256)
def _assignment_in_class(cls: type, attr: str) -> Location | None:
    # Find the class through its methods' code objects, not inspect.getsource(cls):
    # that looks the class up through sys.modules[cls.__module__], which for a
    # script run as __main__ is no longer the script once it has finished.
    for value in vars(cls).values():
        code = getattr(value, "__code__", None)
        if code is None or not is_user_file(code.co_filename):
            continue
        found = _assignment_in_file(code.co_filename, cls.__name__, code.co_firstlineno, attr)
        if found is not None:
            return found
    return None


@lru_cache(maxsize=64)
def _parsed(filename: str) -> ast.Module | None:
    try:
        with open(filename, encoding="utf-8") as handle:
            return ast.parse(handle.read(), filename)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None


def _assignment_in_file(filename: str, class_name: str, method_line: int, attr: str) -> Location | None:
    tree = _parsed(filename)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name and node.lineno <= method_line <= (node.end_lineno or 0):
            for inner in ast.walk(node):
                targets: list[ast.expr] = []
                if isinstance(inner, ast.Assign):
                    targets = inner.targets
                elif isinstance(inner, (ast.AnnAssign, ast.AugAssign)):
                    targets = [inner.target]
                for target in targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and target.attr == attr
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        return Location(filename, inner.lineno, inner.col_offset + 1)
    return None
