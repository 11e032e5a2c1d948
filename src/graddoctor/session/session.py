"""A Session: one instrumented stretch of training, with its observers and their findings.

The session knows observers only through their contract (session/observer.py):
it calls each event method by name in plain code, records an observer that
fails in one place (`_failed`) and stops calling it, and hands one observer's
answer to another through `consult`. Which observers exist, and what is done
with their findings together, is decided where they are assembled
(graddoctor/assembly.py), not here.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Iterable
from typing import TypeVar

import torch
from torch import nn

from graddoctor.finding import Finding
from graddoctor.internal import record_internal_error
from graddoctor.locate import Location
from graddoctor.session import dispatch
from graddoctor.session.models import label_models, names_in_namespace, names_in_user_frames, root_modules
from graddoctor.session.observer import BackwardEvent, CallEvent, Observer, StepEvent
from graddoctor.session.registry import OptimizerRecord, record_for, remember_creation

T = TypeVar("T")
D = TypeVar("D")


class StopRun(BaseException):
    """Raised at the `--max-steps`-th optimizer step to end the user's script cleanly.

    A BaseException, so that the user's `except Exception:` does not catch it.
    """


class Session:
    """Installs the global instrumentation while attached and feeds its observers.

    Models and optimizers are either given or discovered: optimizers as they are
    built or first step, models (root modules that own parameters) at the first
    backward pass and whenever an optimizer steps for the first time.
    `conclude` is applied to the observers' findings taken together (the
    assembled set passes the catalogue's superseding rule).
    """

    def __init__(
        self,
        observers: Iterable[Observer],
        *,
        models: nn.Module | Iterable[nn.Module] | dict[str, nn.Module] | None = None,
        optimizers: (torch.optim.Optimizer | Iterable[torch.optim.Optimizer] | dict[str, torch.optim.Optimizer]
                     | None) = None,
        max_steps: int | None = None,
        namespace: dict | None = None,
        conclude: Callable[[list[Finding]], list[Finding]] | None = None,
    ) -> None:
        self.observers = list(observers)
        self.max_steps = max_steps
        self.namespace = namespace  # the script's globals, to name its models
        self.conclude = conclude
        self._explicit_models = _as_model_dict(models)
        # Discovered models are held weakly: one the script replaced (a model rebuilt each fold) is
        # freed as it would be without graddoctor. Those found at the latest discovery are also held
        # strongly, for the report: under `run` it is made after the script's globals are gone.
        self._models: dict[int, weakref.ref] = {}  # module id -> the model, while it lives
        self._held: list[nn.Module] = []
        self._frame_names: dict[int, str] = {}  # module id -> the user's variable/attribute that held it
        self._labels: dict[int, str] = {}  # module id -> its label, fixed when first given
        self._retired_labels: set[str] = set()  # labels of models since freed: never given again
        self._optimizers: list[torch.optim.Optimizer] = list(_as_list(optimizers))  # given: held to the end
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
        self._failed: set[int] = set()  # ids of observers that raised: never called again
        self._current_step: StepEvent | None = None
        self.steps_taken = 0  # optimizer steps ended: every optimizer's step() and manual updates together
        self.steps_by_optimizer: dict[int, int] = {}
        self._optimizer_names: dict[int, str] = {}  # optimizer id -> the user's variable, in order of first step
        self.backward_count = 0
        self.internal_errors: list[str] = []
        self.attached = False
        self.last_backward: BackwardEvent | None = None
        self.failed_backward: tuple[BackwardEvent, BaseException] | None = None
        self.crashed = False  # the user's code raised out of the session (set before detach)
        self.processes_started: list[Location] = []  # by the user's code, DataLoader workers aside
        # event name -> [(observer, bound method)], for the observers that override it (_dispatch)
        self._handlers: dict[str, list] = {}
        self._handlers_of: list | None = None
        self._handlers_n = 0

    # --- lifetime -------------------------------------------------------------------------

    def attach(self) -> "Session":
        if self.attached:
            return self
        dispatch.register(self)
        self.attached = True
        for observer in self._live():
            self._call(observer, "start", lambda: observer.start(self))
        for opt in self._optimizers:
            self.optimizer_created(opt, Location(None, None))
        return self

    def detach(self) -> None:
        if not self.attached:
            return
        try:
            dispatch.flush_manual_step()  # a manual step in progress ends with the session
        except StopRun:
            pass  # it was the --max-steps-th: the session ends here anyway
        self.attached = False
        try:
            for observer in self._live():
                self._call(observer, "stop", observer.stop)
        finally:
            dispatch.unregister(self)

    def __enter__(self) -> "Session":
        return self.attach()

    def __exit__(self, exc_type, *exc) -> None:
        self.crashed = exc_type is not None and not issubclass(exc_type, StopRun)
        self.detach()

    # --- what the session knows -------------------------------------------------------------

    @property
    def step(self) -> int:
        """The 1-based number of the optimizer step in progress or, between steps, of the next one.

        The one step numbering of every event, finding and message (SPEC section 2): the Nth
        `step()` or manual update of the run, all optimizers counted together.
        """
        return self.steps_taken + 1

    @property
    def iterations(self) -> int:
        """Steps of the most-stepped optimizer: for budgets that must not shrink when a loop
        steps several optimizers (a GAN), never for a number shown to the user."""
        return max(max(list(self.steps_by_optimizer.values()), default=0), self._freed_most)

    def steps_by_name(self) -> dict[str, int]:
        """Each stepped optimizer's own step count, by the user's name for it, in order of first step."""
        live = {name: self.steps_by_optimizer.get(key, 0) for key, name in list(self._optimizer_names.items())}
        return {name: live[name] if name in live else self._freed_steps.get(name, 0) for name in self._name_order}

    def _name_optimizer(self, optimizer: torch.optim.Optimizer) -> None:
        """The name given for an optimizer, else the script's global holding it at its first step
        (`opt_G`), else its class (`Adam`, `Adam#2`).

        Not the locals of a function: on Python < 3.13 reading `frame.f_locals` copies them into a
        dict that the frame keeps, and that copy would keep the user's loss and its graph alive.
        """
        key = id(optimizer)
        name = self._given_names.get(key)
        name = name or names_in_namespace({key}, self._namespace(), torch.optim.Optimizer).get(key)
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

    def optimizers(self) -> list[OptimizerRecord]:
        found = [opt for opt in (ref() for ref in list(self._found_optimizers.values())) if opt is not None]
        return record_for(self._optimizers + found)

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

    def _adopt(self, optimizer: torch.optim.Optimizer) -> None:
        """Know an optimizer that was not given: weakly (see `__init__`), and strongly while recent."""
        key = id(optimizer)
        if key not in self._recent:
            self._recent[key] = optimizer
        if any(o is optimizer for o in self._optimizers):
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
            freed_at = self.backward_count
            self._former_params.update((pid, (p, freed_at)) for pid, p in self._params_of.pop(key, {}).items())
        self._stepped.discard(key)
        steps = self.steps_by_optimizer.pop(key, 0)
        name = self._optimizer_names.pop(key, None)
        if name is not None:
            self._freed_steps[name] = steps
        self._freed_most = max(self._freed_most, steps)

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

    def failed(self, observer: Observer) -> bool:
        """Whether `observer` raised and was switched off."""
        return id(observer) in self._failed

    def function_mode_held(self, asking: Observer | None = None) -> bool:
        """Whether an observer other than `asking` holds a TorchFunctionMode now."""
        return any(o is not asking and o.holds_function_mode for o in self.observers)

    def consult(self, dependency: D | None, ask: Callable[[D], T], default: T) -> T:
        """What another observer answers (`ask(dependency)`): `default` when there is none,
        it failed before, or it fails now (then it is switched off like any failed observer)."""
        if dependency is None or id(dependency) in self._failed:
            return default
        try:
            return ask(dependency)
        except Exception:
            self._fail(dependency, "answer to another observer")
            return default

    # --- events from dispatch ---------------------------------------------------------------

    def optimizer_created(self, optimizer: torch.optim.Optimizer, where: Location) -> None:
        remember_creation(optimizer, where)
        self._adopt(optimizer)
        record = next(r for r in self.optimizers() if r.optimizer is optimizer)
        for observer in self._live():
            self._call(observer, "on_optimizer_created", lambda: observer.on_optimizer_created(record))

    def begin_backward(self, event: BackwardEvent) -> None:
        event.index = self.backward_count
        event.step = self.step
        self.backward_count += 1
        if event.index == 0:
            self._call(None, "discover_models", self.discover_models)
        self.last_backward = event
        self._dispatch("before_backward", event)

    def after_backward(self, event: BackwardEvent) -> None:
        self._dispatch("after_backward", event)

    def backward_failed(self, event: BackwardEvent, exc: BaseException) -> None:
        self.failed_backward = (event, exc)

    def begin_step(self, optimizer: torch.optim.Optimizer, where: Location) -> None:
        key = id(optimizer)
        if key not in self._stepped:
            self._stepped.add(key)
            self.discoveries += 1
            # A new optimizer steps: the earlier ones that stepped are held by the script, if at all.
            self._recent = {k: o for k, o in self._recent.items() if k not in self._stepped}
            self._adopt(optimizer)
            self._call(None, "discover_models", self.discover_models)
            self._call(None, "name_optimizer", lambda: self._name_optimizer(optimizer))
        elif key not in self._recent:
            self._recent[key] = optimizer
        event = self._current_step = StepEvent(optimizer, where, self.step)
        self._dispatch("before_step", event)

    def end_step(self, optimizer: torch.optim.Optimizer) -> None:
        key = id(optimizer)
        self.steps_by_optimizer[key] = self.steps_by_optimizer.get(key, 0) + 1
        self.steps_taken += 1
        event = self._current_step
        if event is not None and event.optimizer is optimizer:
            self._dispatch("after_step", event)
        if self.max_steps is not None and self.steps_taken >= self.max_steps:
            raise StopRun(f"stopped after {self.steps_taken} optimizer steps (--max-steps)")

    def on_call(self, event: CallEvent) -> None:
        event.step = self.step
        self._dispatch("on_call", event)

    # --- results ----------------------------------------------------------------------------

    def explain_exception(self, exc: BaseException, where: Location) -> list[Finding]:
        out: list[Finding] = []
        for observer in self._live():
            self._call(observer, "explain_exception", lambda: observer.explain_exception(exc, where), store=out.extend)
        return out

    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        for observer in self._live():
            self._call(observer, "findings", observer.findings, store=out.extend)
        if self.conclude is not None:
            return self.conclude(out)
        return out

    def layer_rows(self) -> list:
        """The per-layer table (one row per module that owns parameters), from the observer keeping it."""
        for observer in self._live():
            rows: list = []
            self._call(observer, "layer_rows", observer.layer_rows, store=lambda found: rows.extend(found or []))
            if rows:
                return rows
        return []

    # --- never let our own failure become the user's ------------------------------------------

    def _dispatch(self, event_name: str, event) -> None:
        """An event of the training step to the observers that listen to it.

        The hot path: each observer's bound method is looked up once, and again only when the
        set of observers changes or one fails (observers that keep the base class's no-op are
        left out), not a closure per observer per event.
        """
        handlers = self._handlers.get(event_name)
        if handlers is None or self._handlers_of is not self.observers or len(self.observers) != self._handlers_n:
            handlers = self._listeners(event_name)
        for observer, method in handlers:
            try:
                method(event)
            except Exception:
                self._fail(observer, event_name)

    def _listeners(self, event_name: str) -> list:
        if self._handlers_of is not self.observers or len(self.observers) != self._handlers_n:
            self._handlers = {}
            self._handlers_of, self._handlers_n = self.observers, len(self.observers)
        base = getattr(Observer, event_name)
        found = self._handlers[event_name] = [
            (o, getattr(o, event_name)) for o in self._live() if getattr(type(o), event_name, base) is not base]
        return found

    def _live(self) -> list[Observer]:
        failed = self._failed
        return [o for o in self.observers if id(o) not in failed] if failed else self.observers

    def _call(self, observer: Observer | None, what: str, call: Callable[[], object], store=None) -> None:
        """Run one observer's `call`; on an exception, record it and switch the observer off."""
        try:
            result = call()
        except Exception:
            self._fail(observer, what)
            return
        if store is not None:
            store(result)

    def _fail(self, observer: Observer | None, what: str) -> None:
        if observer is not None:
            self._failed.add(id(observer))
            self._handlers = {}  # a failed observer is never called again
        owner = type(observer).__name__ + "." if observer is not None else ""
        record_internal_error(self, f"{owner}{what}")


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


def current_sessions() -> list[Session]:
    return dispatch.active_sessions()


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

    def __exit__(self, exc_type, *exc) -> None:
        self.session.crashed = exc_type is not None and not issubclass(exc_type, StopRun)
        self.detach()
