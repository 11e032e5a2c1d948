"""A Session: one instrumented stretch of training, with its observers and their findings.

The session knows observers only through their contract (session/observer.py):
it calls each event method by name in plain code, records an observer that
fails in one place (`_failed`) and stops calling it, and hands one observer's
answer to another through `consult`. Which observers exist, and what is done
with their findings together, is decided where they are assembled
(graddoctor/assembly.py), not here.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import TypeVar

import torch
from torch import nn

from graddoctor.finding import Finding
from graddoctor.internal import record_internal_error
from graddoctor.locate import Location
from graddoctor.session import dispatch, torch_private
from graddoctor.session.discovered import Discovered
from graddoctor.session.manual_steps import ManualUpdates
from graddoctor.session.observer import BackwardEvent, CallEvent, Observer, StepEvent
from graddoctor.session.registry import OptimizerRecord, remember_creation
from graddoctor.session.rhythm import Rhythm, enabled_by_environment

_TRAINING = operator.attrgetter("training")
T = TypeVar("T")
D = TypeVar("D")


class StopRun(BaseException):
    """Raised at the `--max-steps`-th optimizer step to end the user's script cleanly.

    A BaseException, so that the user's `except Exception:` does not catch it.
    """


class Session:
    """Installs the global instrumentation while attached and feeds its observers.

    Models and optimizers are either given or discovered; `discovered`
    (session/discovered.py) keeps them, their names and their step counts.
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
        fingerprint: bool | None = None,
    ) -> None:
        self.observers = list(observers)
        self.max_steps = max_steps
        self.conclude = conclude
        self.discovered = Discovered(models, optimizers, namespace=namespace,
                                     backward_count=lambda: self.backward_count)
        self._failed: set[int] = set()  # ids of observers that raised: never called again
        self._current_step: StepEvent | None = None
        self.steps_taken = 0  # optimizer steps ended: every optimizer's step() and manual updates together
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
        # repeated iterations skip the observers that can miss them (session/rhythm.py);
        # `fingerprint=False` (or GRADDOCTOR_FINGERPRINT=0) sends every event to every observer
        self.rhythm = Rhythm(self, enabled_by_environment() if fingerprint is None else fingerprint)

    # --- lifetime -------------------------------------------------------------------------

    def attach(self) -> "Session":
        if self.attached:
            return self
        dispatch.register(self)
        self.attached = True
        for observer in self._live():
            self._call(observer, "start", lambda: observer.start(self))
        for opt in self.discovered.given_optimizers:
            self.optimizer_created(opt, Location(None, None))
        return self

    def detach(self) -> None:
        if not self.attached:
            return
        try:
            dispatch.flush_manual_step()  # a manual step in progress ends with the session
        except StopRun:
            pass  # it was the --max-steps-th: the session ends here anyway
        self.rhythm.catch_up()  # the observers that slept through repeated iterations are told before they stop
        self.attached = False
        try:
            for observer in self._live():
                self._call(observer, "stop", observer.stop)
        finally:
            dispatch.unregister(self)
            # What this torch lacks of the internals graddoctor uses: said, not a crash.
            self.internal_errors.extend(m for m in torch_private.missing() if m not in self.internal_errors)

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

    def models(self) -> dict[str, nn.Module]:
        """The models watched, by label (the numerics and loop judges ask the session)."""
        return self.discovered.models()

    def optimizers(self) -> list[OptimizerRecord]:
        return self.discovered.optimizers()

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
        self.discovered.adopt(optimizer)
        record = next(r for r in self.optimizers() if r.optimizer is optimizer)
        self.rhythm.disrupt()
        for observer in self._live():
            self._call(observer, "on_optimizer_created", lambda: observer.on_optimizer_created(record))

    def begin_backward(self, event: BackwardEvent) -> None:
        event.index = self.backward_count
        event.step = self.steps_taken + 1  # self.step, without a call: this runs at every backward
        self.backward_count += 1
        if event.index == 0:
            self._call(None, "discover_models", self.discovered.discover_models)
        self.last_backward = event
        rhythm = self.rhythm
        if not rhythm.enabled:
            self._dispatch("before_backward", event)
            return
        loss, extra = event.loss, event.extra
        key = ("backward", event.where, event.retain_graph, event.create_graph, event.grad_mode,
               type(loss.grad_fn) if isinstance(loss, torch.Tensor) else type(loss),
               extra.get("gradient") is None, extra.get("inputs") is None)
        self._keyed("before_backward", event, key)

    def after_backward(self, event: BackwardEvent) -> None:
        self._dispatch("after_backward", event, after=True)

    def backward_failed(self, event: BackwardEvent, exc: BaseException) -> None:
        self.failed_backward = (event, exc)
        self.rhythm.block()

    def begin_step(self, optimizer: torch.optim.Optimizer, where: Location) -> None:
        if self.discovered.first_step(optimizer):
            self._call(None, "discover_models", self.discovered.discover_models)
            self._call(None, "name_optimizer", lambda: self.discovered.name_optimizer(optimizer))
        event = self._current_step = StepEvent(optimizer, where, self.steps_taken + 1)
        rhythm = self.rhythm
        if isinstance(optimizer, ManualUpdates):
            rhythm.block()  # a manual update: its parameters are found by watching them, not by a call
        if rhythm.enabled:
            # the models' modes: a model left in eval mode differs here
            try:
                modes = tuple(map(_TRAINING, map(operator.call, rhythm._roots)))  # rhythm.modes(), without a call
            except AttributeError:
                modes = rhythm.modes()
            self._keyed("before_step", event, ("step", id(optimizer), where, modes))
        else:
            self._dispatch("before_step", event)

    def end_step(self, optimizer: torch.optim.Optimizer) -> None:
        counts = self.discovered.steps_by_optimizer
        counts[id(optimizer)] = counts.get(id(optimizer), 0) + 1  # (discovered.count_step, inline)
        self.steps_taken += 1
        event = self._current_step
        if event is not None and event.optimizer is optimizer:
            self._dispatch("after_step", event, after=True)
        if len(counts) < 2 or counts.get(id(optimizer), 0) <= min(counts.values()):
            # an iteration ends with the step of the optimizer that steps least often (a GAN's generator)
            self.rhythm.end_iteration()
        if self.max_steps is not None and self.steps_taken >= self.max_steps:
            raise StopRun(f"stopped after {self.steps_taken} optimizer steps (--max-steps)")

    def on_call(self, event: CallEvent) -> None:
        event.step = self.steps_taken + 1
        if self.rhythm.enabled:
            self._keyed("on_call", event, ("call", event.kind, event.method, id(event.target), event.where))
        else:
            self._dispatch("on_call", event)

    # --- results ----------------------------------------------------------------------------

    def explain_exception(self, exc: BaseException, where: Location) -> list[Finding]:
        self.rhythm.catch_up()
        out: list[Finding] = []
        for observer in self._live():
            self._call(observer, "explain_exception", lambda: observer.explain_exception(exc, where), store=out.extend)
        return out

    def findings(self) -> list[Finding]:
        self.rhythm.catch_up()
        out: list[Finding] = []
        for observer in self._live():
            self._call(observer, "findings", observer.findings, store=out.extend)
        if self.conclude is not None:
            return self.conclude(out)
        return out

    def layer_rows(self) -> list:
        """The per-layer table (one row per module that owns parameters), from the observer keeping it."""
        self.rhythm.catch_up()
        for observer in self._live():
            rows: list = []
            self._call(observer, "layer_rows", observer.layer_rows, store=lambda found: rows.extend(found or []))
            if rows:
                return rows
        return []

    # --- never let our own failure become the user's ------------------------------------------

    def _full(self, event_name: str) -> list:
        """[(observer, bound method)] of every live observer that listens to `event_name`.

        The hot path: each observer's bound method is looked up once, and again only when the
        set of observers changes or one fails (observers that keep the base class's no-op are
        left out), not a closure per observer per event.
        """
        handlers = self._handlers.get(event_name)
        if handlers is None or self._handlers_of is not self.observers or len(self.observers) != self._handlers_n:
            handlers = self._listeners(event_name)
        return handlers

    def _keyed(self, event_name: str, event, key: tuple) -> None:
        """An event that is part of the iteration's fingerprint: noted, or (steady) compared and handed
        to the observers the rhythm picks.

        The hot path of every backward, step and call: what `rhythm.handlers` and `_dispatch` do, inline
        (a Python call is a visible part of a sub-millisecond step)."""
        full = self._handlers.get(event_name)
        if full is None or self._handlers_of is not self.observers or len(self.observers) != self._handlers_n:
            full = self._listeners(event_name)
        rhythm = self.rhythm
        if not rhythm.steady:
            rhythm.note(key)
        else:
            position = rhythm.position
            if position < rhythm.last and rhythm.pattern[position] == key:
                rhythm.position = position + 1
                route = rhythm.routes.get(event_name)
                handlers = route[1] if route is not None and route[0] is full else rhythm.route(event_name, full)
                rhythm.dispatching = True
                for observer, method in handlers:
                    try:
                        method(event)
                    except Exception:
                        self._fail(observer, event_name)
                rhythm.dispatching = False
                if not rhythm.steady:
                    # an observer saw a symptom during this event and woke every other: the ones it skipped get it too
                    called = {id(o) for o, _ in handlers}
                    for observer, method in self._full(event_name):
                        if id(observer) not in called:
                            try:
                                method(event)
                            except Exception:
                                self._fail(observer, event_name)
                return
            rhythm.differs(key)
        for observer, method in full:
            try:
                method(event)
            except Exception:
                self._fail(observer, event_name)

    def _dispatch(self, event_name: str, event, after: bool = False) -> None:
        """An event of the training step to every observer that listens to it; an after_ event (`after`)
        to the observers its before_ event went to (while steady, the awake ones)."""
        handlers = self._handlers.get(event_name)
        if handlers is None or self._handlers_of is not self.observers or len(self.observers) != self._handlers_n:
            handlers = self._listeners(event_name)
        if after and self.rhythm.steady:
            route = self.rhythm.routes.get(event_name)
            handlers = route[1] if route is not None and route[0] is handlers else self.rhythm.route(event_name, handlers)
        for observer, method in handlers:
            try:
                method(event)
            except Exception:
                self._fail(observer, event_name)

    def _wake_in(self, observer: Observer, rhythm) -> int | None:
        """How many repeated iterations `observer` can miss (0 when it fails to say)."""
        try:
            return observer.wake_in(rhythm)
        except Exception:
            self._fail(observer, "wake_in")
            return 0

    def _resync(self, observer: Observer, skipped: int, prefix: tuple) -> None:
        if id(observer) not in self._failed:
            try:  # self._call, without its closure: at every wake-up
                observer.resync(skipped, prefix, self.rhythm)
            except Exception:
                self._fail(observer, "resync")

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
            self.rhythm.forget_routes()
        owner = type(observer).__name__ + "." if observer is not None else ""
        record_internal_error(self, f"{owner}{what}")


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
