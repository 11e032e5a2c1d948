"""What an observer of a training run may react to. Every method is optional.

Observers are the producers of runtime findings (graph reach, the loop
audit, numerics, provenance). The session calls them from inside the user's
training step, so they must be cheap on the hot path and must not change any
tensor the user can see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import torch

from graddoctor.finding import Finding
from graddoctor.locate import Location


@dataclass
class BackwardEvent:
    loss: Any  # what backward() was called on (tensors as given)
    where: Location  # the user's backward line
    index: int  # 0-based count of backward calls in this session
    step: int  # 1-based number of the optimizer step this backward comes before (Session.step)
    retain_graph: bool | None = None
    create_graph: bool = False
    grad_mode: bool = True  # torch.is_grad_enabled() at the call
    extra: dict = field(default_factory=dict)

    def trace(self, loss: torch.Tensor):
        """The graph walked from `loss`: once per backward call, however many observers ask."""
        from graddoctor.graph.walk import trace

        cache = self.extra.setdefault("traces", {})
        found = cache.get(id(loss))
        if found is None:
            found = cache[id(loss)] = trace(loss)
        return found


@dataclass
class StepEvent:
    optimizer: torch.optim.Optimizer
    where: Location
    step: int  # 1-based number of this step in the run (all optimizers together; Session.step)


@dataclass
class CallEvent:
    """zero_grad, clipping, scheduler and GradScaler calls."""

    kind: str  # "zero_grad", "clip", "scheduler", "scaler"
    target: Any  # the optimizer / module / scheduler / scaler
    where: Location
    step: int  # 1-based number of the optimizer step in progress or next (Session.step)
    method: str = ""  # e.g. "clip_grad_norm_", "unscale_", "step"
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    result: Any = None


class Observer:
    """Base class: override what you need. `findings()` is asked once, at the end.

    An observer declares the codes it can emit in `codes` (a test checks every
    runtime code of the catalogue has one). What it needs from another observer
    it is given when the set is assembled, as a named attribute typed by one of
    the protocols below, and asks through `session.consult`, which answers a
    default when that observer is absent or failed.
    """

    name = "observer"
    codes: frozenset[str] = frozenset()
    # True while this observer has (or will resume) a TorchFunctionMode of its own.
    # Two of ours on the stack at once could be popped out of order, so an observer
    # that pushes one first asks the session whether another holds one.
    holds_function_mode = False

    def start(self, session) -> None:
        self.session = session

    def stop(self) -> None:
        pass

    def on_optimizer_created(self, record) -> None:
        pass

    def before_backward(self, event: BackwardEvent) -> None:
        pass

    def after_backward(self, event: BackwardEvent) -> None:
        pass

    def before_step(self, event: StepEvent) -> None:
        pass

    def after_step(self, event: StepEvent) -> None:
        pass

    def on_call(self, event: CallEvent) -> None:
        pass

    # --- iterations that repeat (session/rhythm.py) ------------------------------------------

    # The events it still gets while it sleeps through repeated iterations (e.g. "before_backward",
    # to read every loss): their state must then be kept by them alone, `resync` counting the rest.
    steady_events: frozenset[str] = frozenset()

    def wake_in(self, rhythm) -> int | None:
        """How many iterations repeating the loop's pattern this observer can miss before it must
        see one in full: 0 (the default) for none, it sees every event; None for any number; a
        negative number for none while this pattern lasts (it is not asked again until the pattern
        has changed and repeated again: what keeps it awake is in the pattern itself).

        Asked when the pattern has settled and after each repeated iteration it saw. `rhythm`
        tells what one iteration holds: `steps` (optimizer id -> its steps per iteration),
        `backwards`, and where the next iteration starts (`step`, `backward_index`). Anything
        that differs from the pattern brings every observer back at once, with `resync`."""
        return 0

    def resync(self, skipped: int, prefix: tuple, rhythm) -> None:
        """Before the next event it sees: `skipped` whole iterations, each repeating the pattern,
        went by unseen, and then the events whose keys are `prefix` (the start of the iteration in
        progress, which matched the pattern until something differed: `("step", optimizer id,
        where)`, `("backward", where, ...)`, `("call", kind, method, target id, where)`)."""

    def explain_exception(self, exc: BaseException, where: Location) -> list[Finding]:
        """Findings that explain the user's exception with what this observer saw."""
        return []

    def findings(self) -> list[Finding]:
        return []

    def layer_rows(self) -> list | None:
        """The per-layer table, when this observer keeps one (None: it does not)."""
        return None


# --- what one observer may need from another -----------------------------------------------


class CutSource(Protocol):
    """Deep mode's record of where autograd history was cut."""

    def cuts(self, loss=None) -> list:
        """The cuts on the way to `loss` (any observed loss when None); each has `location`,
        `param_ids`, `trained_ids`, `backward`, `grad_off`, `region_entry`, `describe()` and `related()`."""
        ...


class DeepRecording(CutSource, Protocol):
    """Deep mode as the cheap observers see it: asked for one deep step after a symptom,
    and asked what it saw."""

    def on_deep_request(self, reason: str, where: Location | None) -> bool: ...

    def nan_origin(self):
        """The first forward op that made a NaN/Inf (a NanOrigin), or None."""
        ...

    def zeroing_ops(self) -> list:
        """Ops seen giving a zero gradient to their input (ZeroingOp records)."""
        ...


class LoopEvidence(Protocol):
    """What the loop audit found, as evidence for a stalled loss."""

    def stall_evidence(self) -> list[tuple[str, str]]: ...

    def codes_seen(self) -> set[str]: ...
