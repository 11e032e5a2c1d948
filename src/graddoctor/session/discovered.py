"""The models and optimizers of a session: given, or discovered while it is attached.

Optimizers are found as they are built or first step, models (root modules that
own parameters) at the first backward pass and whenever an optimizer steps for
the first time. What is found is held weakly, so that a model or optimizer the
script drops (one per fold) is freed as it would be without graddoctor; its
name and its steps stay, for the report.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Iterable

import torch
from torch import nn

from graddoctor.session.models import label_models, names_in_namespace, names_in_user_frames, root_modules
from graddoctor.graph.optimizer_call import assigned_name
from graddoctor.session.registry import OptimizerRecord, created_at, record_for


class Discovered:
    """The session's models and optimizers, their names, and each optimizer's step count.

    `backward_count` tells how many backward passes the session has run (the moment an
    optimizer is freed is kept for its parameters); `namespace` is the script's globals
    when given (`run`), to name what the script holds.
    """

    def __init__(
        self,
        models: nn.Module | Iterable[nn.Module] | dict[str, nn.Module] | None,
        optimizers: (torch.optim.Optimizer | Iterable[torch.optim.Optimizer] | dict[str, torch.optim.Optimizer]
                     | None),
        *,
        namespace: dict | None,
        backward_count: Callable[[], int],
    ) -> None:
        self.namespace = namespace
        self._backward_count = backward_count
        self._explicit_models = _as_model_dict(models)
        # Discovered models are held weakly: one the script replaced (a model rebuilt each fold) is
        # freed as it would be without graddoctor. Those found at the latest discovery are also held
        # strongly, for the report: under `run` it is made after the script's globals are gone.
        self._models: dict[int, weakref.ref] = {}  # module id -> the model, while it lives
        self._held: list[nn.Module] = []
        self._frame_names: dict[int, str] = {}  # module id -> the user's variable/attribute that held it
        self._labels: dict[int, str] = {}  # module id -> its label, fixed when first given
        self._retired_labels: set[str] = set()  # labels of models since freed: never given again
        self.given_optimizers: list[torch.optim.Optimizer] = list(_as_list(optimizers))  # held to the end
        # Optimizers found (built or stepped while attached) are held weakly, so that one the script
        # drops (a new one per fold) is freed with its state. Those built or stepped since an
        # optimizer last stepped for the first time are also held strongly, for the report.
        self._found_optimizers: dict[int, weakref.ref] = {}  # optimizer id -> the optimizer, while it lives
        self._recent: dict[int, torch.optim.Optimizer] = {}
        self._freed_steps: dict[str, int] = {}  # name -> steps, of the found optimizers since freed
        # the parameters of each found optimizer, weakly, and of those since freed: they were trained
        # (tensors compare by value, so not WeakSets: parameter id -> weak reference)
        self._params_of: dict[int, dict[int, weakref.ref]] = {}
        self._former_params: dict[int, tuple[weakref.ref, int]] = {}  # ... -> (ref, backward count when freed)
        self._freed_most = 0  # the most steps of one of those
        self._name_order: list[str] = []  # every optimizer's name, in order of first step
        # optimizers given by name (`watch(models, {"G": opt_G, "D": opt_D})`) keep that name
        given = optimizers.items() if isinstance(optimizers, dict) else ()
        self._given_names: dict[int, str] = {id(opt): str(name) for name, opt in given}
        self._stepped: set[int] = set()
        # Counts the discoveries of models and optimizers: an observer that samples (the graph
        # walks) looks closely again after one, so that a model built mid-run (one per fold) is seen.
        self.discoveries = 0
        self.steps_by_optimizer: dict[int, int] = {}
        self._optimizer_names: dict[int, str] = {}  # optimizer id -> the user's variable, in order of first step

    # --- optimizers -------------------------------------------------------------------------

    @property
    def iterations(self) -> int:
        """Steps of the most-stepped optimizer: for budgets that must not shrink when a loop
        steps several optimizers (a GAN), never for a number shown to the user."""
        return max(max(list(self.steps_by_optimizer.values()), default=0), self._freed_most)

    def steps_by_name(self) -> dict[str, int]:
        """Each stepped optimizer's own step count, by the user's name for it, in order of first step."""
        live = {name: self.steps_by_optimizer.get(key, 0) for key, name in list(self._optimizer_names.items())}
        return {name: live[name] if name in live else self._freed_steps.get(name, 0) for name in self._name_order}

    def optimizers(self) -> list[OptimizerRecord]:
        found = [opt for opt in (ref() for ref in list(self._found_optimizers.values())) if opt is not None]
        return record_for(self.given_optimizers + found)

    def former_params(self) -> list[tuple[torch.Tensor, int]]:
        """The parameters, still alive, of optimizers the script has since dropped, each with the
        number of backward passes run when its optimizer was freed."""
        out = []
        for key, (ref, freed_at) in list(self._former_params.items()):
            p = ref()
            if p is None:
                del self._former_params[key]
            else:
                out.append((p, freed_at))
        return out

    def first_step(self, optimizer: torch.optim.Optimizer) -> bool:
        """Note that `optimizer` steps; True at its first step (then it is adopted, and the
        models should be discovered again and the optimizer named)."""
        key = id(optimizer)
        if key not in self._stepped:
            self._stepped.add(key)
            self.discoveries += 1
            # A new optimizer steps: the earlier ones that stepped are held by the script, if at all.
            self._recent = {k: o for k, o in self._recent.items() if k not in self._stepped}
            self.adopt(optimizer)
            return True
        if key not in self._recent:
            self._recent[key] = optimizer
        return False

    def count_step(self, optimizer: torch.optim.Optimizer) -> None:
        key = id(optimizer)
        self.steps_by_optimizer[key] = self.steps_by_optimizer.get(key, 0) + 1

    def adopt(self, optimizer: torch.optim.Optimizer) -> None:
        """Know an optimizer that was not given: weakly (see `__init__`), and strongly while recent."""
        key = id(optimizer)
        if key not in self._recent:
            self._recent[key] = optimizer
        if any(o is optimizer for o in self.given_optimizers):
            return
        # read again at its first step: param groups may have been added since it was built
        self._params_of.setdefault(key, {}).update(
            (id(p), weakref.ref(p)) for group in optimizer.param_groups for p in group["params"])
        ref = self._found_optimizers.get(key)
        if ref is not None and ref() is optimizer:
            return
        self._found_optimizers[key] = weakref.ref(optimizer, lambda ref: self._optimizer_freed(key, ref))

    def _optimizer_freed(self, key: int, ref: weakref.ref) -> None:
        """An optimizer the script dropped is gone: its id may be the next one's, so what is kept
        by it moves to its name (its steps stay in the report)."""
        if self._found_optimizers.get(key) is ref:
            del self._found_optimizers[key]
            freed_at = self._backward_count()
            self._former_params.update((pid, (p, freed_at)) for pid, p in self._params_of.pop(key, {}).items())
        self._stepped.discard(key)
        steps = self.steps_by_optimizer.pop(key, 0)
        name = self._optimizer_names.pop(key, None)
        if name is not None:
            self._freed_steps[name] = steps
        self._freed_most = max(self._freed_most, steps)

    def name_optimizer(self, optimizer: torch.optim.Optimizer) -> None:
        """The name given for an optimizer, else the script's global holding it at its first step
        (`opt_G`), else the name it was assigned to where it was built, else its class (`Adam`, `Adam#2`).

        Not the locals of a function: on Python < 3.13 reading `frame.f_locals` copies them into a
        dict that the frame keeps, and that copy would keep the user's loss and its graph alive.
        """
        key = id(optimizer)
        name = self._given_names.get(key)
        name = name or names_in_namespace({key}, self._namespace(), torch.optim.Optimizer).get(key)
        # An optimizer built inside a function (`def main(): optimizer = Adam(...)`) has no global:
        # the assignment at its construction line names it.
        name = name or assigned_name(created_at(optimizer))
        if name is None:
            name = getattr(optimizer, "display_name", None) or type(optimizer).__name__
        base, n = name, 2
        taken = set(self._name_order)  # a freed optimizer's name too: its steps are still reported
        while name in taken:
            name = f"{base}#{n}"
            n += 1
        self._optimizer_names[key] = name
        self._name_order.append(name)

    def _namespace(self) -> dict | None:
        """The script's globals: given (`run`), else those of `__main__`."""
        if self.namespace is not None:
            return self.namespace
        main = sys.modules.get("__main__")
        return vars(main) if main is not None else None

    # --- models -----------------------------------------------------------------------------

    def models(self) -> dict[str, nn.Module]:
        if self._explicit_models:
            return self._explicit_models
        self._forget_freed_models()
        live = [m for m in (ref() for ref in list(self._models.values())) if m is not None]
        return label_models(live, self._namespace(), dict(self._frame_names), self._labels, self._retired_labels)

    def watch_models(self, models: dict[str, nn.Module]) -> None:
        """Watch these models from now on (a framework wraps the user's model once training starts)."""
        self._explicit_models = dict(models)

    def discover_models(self) -> None:
        if self._explicit_models:
            return
        # The models of the previous discovery are let go first: held, they would be found alive
        # again, and every model the script ever dropped would be kept to the end.
        self.discoveries += 1
        self._held = []
        self._forget_freed_models()
        # Names read while the user's frames are on the stack (at the end of `run` the script's
        # globals are gone, and a model built in a function was only ever a local), and read
        # first: on Python < 3.13 reading a frame's locals leaves a copy in the frame, holding
        # the model of the previous discovery; refreshed now, it no longer keeps that one alive.
        in_frames = names_in_user_frames(None)
        held = root_modules()
        for module in held:
            key = id(module)
            ref = self._models.get(key)
            if ref is None or ref() is not module:
                self._models[key] = weakref.ref(module)
            if key in in_frames:
                self._frame_names.setdefault(key, in_frames[key])
        self._held = held

    def _forget_freed_models(self) -> None:
        """Drop the models freed since: their ids may now be another object's. Their labels stay
        taken (`model#2` is the second object `model` held, also after the first is gone)."""
        for key, ref in list(self._models.items()):
            if ref() is None:
                del self._models[key]
                self._frame_names.pop(key, None)
                label = self._labels.pop(key, None)
                if label is not None:
                    self._retired_labels.add(label)


def _as_list(value) -> list:
    if value is None:
        return []
    if isinstance(value, (torch.optim.Optimizer, nn.Module)):
        return [value]
    if isinstance(value, dict):
        return list(value.values())
    return list(value)


def _as_model_dict(models) -> dict[str, nn.Module]:
    if models is None:
        return {}
    if isinstance(models, nn.Module):
        # the user's variable (`net`) when one holds it, as for the models a run discovers
        return {names_in_user_frames({id(models)}).get(id(models), "model"): models}
    if isinstance(models, dict):
        return dict(models)
    models = list(models)
    return label_models(models, None, names_in_user_frames({id(m) for m in models}))
