"""A Session: one instrumented stretch of training, with its observers and their findings."""

from __future__ import annotations

import gc
import sys
import traceback
from collections.abc import Iterable

import torch
from torch import nn

from graddoctor.finding import Finding
from graddoctor.graph.naming import ModelIndex
from graddoctor.locate import Location
from graddoctor.session import dispatch
from graddoctor.session.observer import BackwardEvent, Observer, StepEvent
from graddoctor.session.registry import OptimizerRecord, record_for, remember_creation


class StopRun(BaseException):
    """Raised at the `--max-steps`-th optimizer step to end the user's script cleanly.

    A BaseException, so that the user's `except Exception:` does not catch it.
    """


class Session:
    """Installs the global instrumentation while attached and feeds its observers.

    Models and optimizers are either given or discovered: optimizers as they are
    built or first step, models (root modules that own parameters) at the first
    backward pass and whenever an optimizer steps for the first time.
    """

    def __init__(
        self,
        observers: Iterable[Observer],
        *,
        models: nn.Module | Iterable[nn.Module] | dict[str, nn.Module] | None = None,
        optimizers: torch.optim.Optimizer | Iterable[torch.optim.Optimizer] | None = None,
        max_steps: int | None = None,
        namespace: dict | None = None,
    ) -> None:
        self.observers = list(observers)
        self.max_steps = max_steps
        self.namespace = namespace  # the script's globals, to name its models
        self._explicit_models = _as_model_dict(models)
        self._models: dict[int, nn.Module] = {}
        self._optimizers: list[torch.optim.Optimizer] = list(_as_list(optimizers))
        self._stepped: set[int] = set()
        self.steps_by_optimizer: dict[int, int] = {}
        self.backward_count = 0
        self.internal_errors: list[str] = []
        self.attached = False
        self.last_backward: BackwardEvent | None = None
        self.failed_backward: tuple[BackwardEvent, BaseException] | None = None

    # --- lifetime -------------------------------------------------------------------------

    def attach(self) -> "Session":
        if self.attached:
            return self
        dispatch.register(self)
        self.attached = True
        for observer in self.observers:
            self._safe(observer, "start", self)
        for opt in self._optimizers:
            self.optimizer_created(opt, Location(None, None))
        return self

    def detach(self) -> None:
        if not self.attached:
            return
        self.attached = False
        try:
            for observer in self.observers:
                self._safe(observer, "stop")
        finally:
            dispatch.unregister(self)

    def __enter__(self) -> "Session":
        return self.attach()

    def __exit__(self, *exc) -> None:
        self.detach()

    # --- what the session knows -------------------------------------------------------------

    @property
    def step(self) -> int:
        """Training iterations so far: the step count of the most-stepped optimizer."""
        return max(self.steps_by_optimizer.values(), default=0)

    def optimizers(self) -> list[OptimizerRecord]:
        return record_for(self._optimizers)

    def models(self) -> dict[str, nn.Module]:
        if self._explicit_models:
            return self._explicit_models
        namespace = self.namespace
        if namespace is None:
            main = sys.modules.get("__main__")
            namespace = vars(main) if main is not None else None
        return _label_models(list(self._models.values()), namespace)

    def model_index(self) -> ModelIndex:
        return ModelIndex(self.models())

    def discover_models(self) -> None:
        if self._explicit_models:
            return
        for module in _root_modules():
            self._models.setdefault(id(module), module)

    # --- events from dispatch ---------------------------------------------------------------

    def optimizer_created(self, optimizer: torch.optim.Optimizer, where: Location) -> None:
        remember_creation(optimizer, where)
        if all(o is not optimizer for o in self._optimizers):
            self._optimizers.append(optimizer)
        record = next(r for r in self.optimizers() if r.optimizer is optimizer)
        self.dispatch("on_optimizer_created", record)

    def begin_backward(self, event: BackwardEvent) -> None:
        event.index = self.backward_count
        event.step = self.step
        self.backward_count += 1
        if event.index == 0:
            self._safe_call(self.discover_models)
        self.last_backward = event
        self.dispatch("before_backward", event)

    def backward_failed(self, event: BackwardEvent, exc: BaseException) -> None:
        self.failed_backward = (event, exc)

    def begin_step(self, optimizer: torch.optim.Optimizer, where: Location) -> None:
        if id(optimizer) not in self._stepped:
            self._stepped.add(id(optimizer))
            if all(o is not optimizer for o in self._optimizers):
                self._optimizers.append(optimizer)
            self._safe_call(self.discover_models)
        self._current_step = StepEvent(optimizer, where, self.step)
        self.dispatch("before_step", self._current_step)

    def end_step(self, optimizer: torch.optim.Optimizer) -> None:
        key = id(optimizer)
        self.steps_by_optimizer[key] = self.steps_by_optimizer.get(key, 0) + 1
        event = getattr(self, "_current_step", None)
        if event is not None and event.optimizer is optimizer:
            self.dispatch("after_step", event)
        if self.max_steps is not None and self.step >= self.max_steps:
            raise StopRun(f"stopped after {self.step} optimizer steps (--max-steps)")

    def function_mode_held(self, asking: Observer | None = None) -> bool:
        """Whether an observer other than `asking` holds a TorchFunctionMode now."""
        return any(o is not asking and getattr(o, "holds_function_mode", False) for o in self.observers)

    def dispatch(self, method: str, event) -> None:
        for observer in self.observers:
            if getattr(observer, "_graddoctor_failed", False):
                continue
            self._safe(observer, method, event)

    # --- results ----------------------------------------------------------------------------

    def explain_exception(self, exc: BaseException, where: Location) -> list[Finding]:
        out: list[Finding] = []
        for observer in self.observers:
            found = self._safe(observer, "explain_exception", exc, where)
            out.extend(found or [])
        return out

    def cuts(self, loss=None) -> list:
        """The cuts the observers recorded between parameters and `loss` (see Observer.cuts)."""
        out: list = []
        for observer in self.observers:
            if hasattr(observer, "cuts") and not getattr(observer, "_graddoctor_failed", False):
                out.extend(self._safe(observer, "cuts", loss) or [])
        return out

    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        for observer in self.observers:
            if getattr(observer, "_graddoctor_failed", False):
                continue
            out.extend(self._safe(observer, "findings") or [])
        return drop_superseded(out)

    # --- never let our own failure become the user's ------------------------------------------

    def _safe(self, observer: Observer, method: str, *args):
        try:
            return getattr(observer, method)(*args)
        except StopRun:
            raise
        except Exception:
            observer._graddoctor_failed = True  # type: ignore[attr-defined]
            self.internal_errors.append(
                f"{type(observer).__name__}.{method} failed:\n{traceback.format_exc()}"
            )
            return None

    def _safe_call(self, fn, *args):
        try:
            return fn(*args)
        except Exception:
            self.internal_errors.append(f"{getattr(fn, '__name__', fn)} failed:\n{traceback.format_exc()}")
            return None


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
        return {"model": models}
    if isinstance(models, dict):
        return dict(models)
    return _label_models(list(models), None)


def _root_modules() -> list[nn.Module]:
    """Modules alive now that own parameters and are nobody's registered submodule.

    Modules kept in a plain list or dict of another module are not roots: they
    belong to that module, unregistered (GD105).
    """
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


def _label_models(models: list[nn.Module], namespace: dict | None) -> dict[str, nn.Module]:
    """Name each model by the script's global that holds it, else by its class."""
    names: dict[int, str] = {}
    if namespace:
        for key, value in list(namespace.items()):
            if isinstance(value, nn.Module) and not key.startswith("_") and id(value) not in names:
                names[id(value)] = key
    out: dict[str, nn.Module] = {}
    for module in models:
        label = names.get(id(module)) or type(module).__name__
        base, n = label, 2
        while label in out:
            label = f"{base}#{n}"
            n += 1
        out[label] = module
    return out


def current_sessions() -> list[Session]:
    return dispatch.active_sessions()


def drop_superseded(findings: list[Finding]) -> list[Finding]:
    """Remove the subjects that a more specific rule already explains from the generic finding.

    A rule names the codes it supersedes (GD401 supersedes GD104: under DDP an
    unused parameter is the same fact, with the DDP-specific consequence and fix).
    A superseded finding left with no subject is dropped.
    """
    from graddoctor.rules import get_rule

    covered: dict[str, set[str]] = {}
    for f in findings:
        for code in get_rule(f.code).supersedes:
            covered.setdefault(code, set()).update(f.subjects)
    if not covered:
        return findings
    out = []
    for f in findings:
        taken = covered.get(f.code)
        if taken and f.subjects:
            left = [s for s in f.subjects if s not in taken]
            if not left:
                continue
            if len(left) != len(f.subjects):
                f.subjects = left
        out.append(f)
    return out


class SessionHandle:
    """What the user holds (a `watch()`, a `GradFlowMonitor`): attach and detach its
    `session`, directly or as a context manager."""

    session: Session

    def attach(self):
        self.session.attach()
        return self

    def detach(self) -> None:
        self.session.detach()

    def __enter__(self):
        return self.attach()

    def __exit__(self, *exc) -> None:
        self.detach()
