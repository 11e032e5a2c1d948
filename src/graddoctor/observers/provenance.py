"""Deep mode: the provenance observer that names the line that cut the graph.

While deep mode is on (the first observed steps of `graddoctor run`,
`watch(deep=True)`), a `Recorder` TorchFunctionMode is pushed and the two
entry points it cannot see are wrapped (`torch.inference_mode` entry/exit and
`torch.from_numpy`). Everything is removed at `stop()` (or once the deep
window has passed), also when the user's code raised.

Other observers (given this one as their `CutSource`) ask `cuts(loss)` which cuts separated parameters from
a loss; this observer answers, and explains the user's exception with what
it recorded (GD101, GD107, GD108, GD112).

Escalation: after the first NaN/Inf loss or gradient, the numerics observer
asks (`on_deep_request`) for one deep step. From the next step boundary to the
following backward, the recorder is on (pushed for it when deep mode had
ended or never began) and checks each op's result for NaN/Inf, so the line of
the first forward op that made one is known (anomaly mode only checks the
backward pass). Normal deep mode never pays for that check.
"""

from __future__ import annotations

import sys

import torch

from graddoctor.finding import Finding
from graddoctor.graph.naming import ModelIndex
from graddoctor.provenance import carried
from graddoctor.graph.phrases import related_at
from graddoctor.observers.provenance_explaining import ExplainsErrors, _loss_tensors
from graddoctor.provenance.recorder import Recorder
from graddoctor.session.rhythm import disrupt
from graddoctor.provenance.records import FROZEN, Cut, InplaceEdit
from graddoctor.rules import make
from graddoctor.session import instrumentation, mode_stack
from graddoctor.session.observer import BackwardEvent, Observer, StepEvent

OWNER = "deep mode"
_recorders: list[Recorder] = []  # of the deep-mode observers active now: the wrappers tell each of them


def _wrap_enter(original):
    def __enter__(ctx):
        result = original(ctx)
        if getattr(ctx, "mode", True):
            for recorder in list(_recorders):
                recorder.grad_mode.enter_inference(sys._getframe(1))
        return result
    return __enter__


def _wrap_exit(original):
    def __exit__(ctx, *exc):
        if getattr(ctx, "mode", True):
            for recorder in list(_recorders):
                recorder.grad_mode.exit_inference()
        return original(ctx, *exc)
    return __exit__


def _wrap_from_numpy(original):
    def from_numpy(array):
        out = original(array)
        for recorder in list(_recorders):
            recorder.tainted_from_number(array, out, sys._getframe(1))
        return out
    return from_numpy


instrumentation.declare(OWNER, torch.autograd.grad_mode.inference_mode, "__enter__", _wrap_enter)
instrumentation.declare(OWNER, torch.autograd.grad_mode.inference_mode, "__exit__", _wrap_exit)
instrumentation.declare(OWNER, torch, "from_numpy", _wrap_from_numpy)


class ProvenanceObserver(ExplainsErrors, Observer):
    """Records cuts, in-place edits and inference tensors for `deep_steps` optimizer steps."""

    name = "provenance"
    codes = frozenset({"GD101", "GD102", "GD107", "GD108", "GD109", "GD110", "GD112"})

    def __init__(self, deep_steps: int | None = None) -> None:
        self.deep_steps = deep_steps  # None: for the whole session
        self.recorder = Recorder()
        self._active = False
        self._suspended = False  # popped for the length of an optimizer step
        self._loss_cuts: dict[int, Cut] = {}  # cuts whose output reached an observed loss
        self._unstepped: set[int] = set()  # cuts of the losses backpropagated since the last step
        self._stepped = False
        self._found: list[Finding] = []
        self._last_backward: BackwardEvent | None = None
        self.escalation: str | None = None  # None, "pending", "open" or "done": once per session
        self.escalation_reason = ""
        self._requested: set[str] = set()  # the reasons a deep step was asked for: each once
        self._ever_active = False
        self._versions: list[tuple[torch.Tensor, int]] = []  # params of the step under way, with versions

    # --- lifetime -----------------------------------------------------------------------------

    def start(self, session) -> None:
        super().start(session)
        self.recorder.session = session
        if self.deep_steps is not None and self.deep_steps <= 0:
            return  # dormant: records only if an escalation asks for it
        self._activate()
        if self.deep_steps is not None:
            # `run` records its first steps deeply anyway; watching them for NaN too costs
            # about 1.5x on those few steps and names the op when the very first step goes
            # bad (after which the weights are NaN and a later window only sees inherited NaN).
            self.recorder.non_finite.watch = True

    def _activate(self) -> None:
        self._ever_active = True
        try:
            if not any(r is self.recorder for r in _recorders):
                _recorders.append(self.recorder)
            instrumentation.attach(OWNER, self)
            self.recorder.__enter__()
            self._active = True
        except BaseException:
            self._unwrap()
            raise

    def _unwrap(self) -> None:
        _recorders[:] = [r for r in _recorders if r is not self.recorder]
        instrumentation.detach(OWNER, self)

    def stop(self) -> None:
        self.recorder.non_finite.watch = False
        if self.escalation in ("pending", "open"):
            self.escalation = "done"
        self._pause()

    def _pause(self) -> None:
        """Pop the mode and undo the wrappers; what was recorded stays for the report."""
        try:
            if self._active:
                self._active = False
                if self._suspended:
                    self._suspended = False
                else:
                    mode_stack.leave(self.recorder)
        finally:
            self._unwrap()
            for region in self.recorder.grad_mode.inference_regions:
                region.close()
            if self.recorder.grad_mode.region is not None:
                self.recorder.grad_mode.region.close()

    @property
    def active(self) -> bool:
        return self._active

    @property
    def holds_function_mode(self) -> bool:  # type: ignore[override]
        # A pending window counts: no other observer may push a mode we would then sit on.
        return self._active or self.escalation in ("pending", "open")

    # --- escalation: one deep step after a NaN/Inf ---------------------------------------------

    def on_deep_request(self, reason: str, where=None) -> bool:
        """Record the next step deeply; once per reason (a NaN/Inf, parameters without gradient),
        never while a window is pending or open."""
        if self.escalation in ("pending", "open") or reason in self._requested:
            return False
        self._requested.add(reason)
        self.escalation, self.escalation_reason = "pending", reason
        disrupt(getattr(self, "session", None))  # the deep step must be seen, and everything with it
        return True

    def wake_in(self, rhythm) -> int | None:
        """Dormant (no deep recording, none asked for) it only notes the step number: it can miss
        repeated iterations. Recording, it sees every one."""
        if self._active or self._suspended or self.escalation in ("pending", "open"):
            return 0
        return None

    def resync(self, skipped: int, prefix: tuple, rhythm) -> None:
        self.recorder.step = self.session.step

    def _open_window(self) -> None:
        if not self._active:
            # Never slide under or over another observer's mode: wait for the next boundary.
            if self.session.function_mode_held(self):
                return
            self._activate()
        self.escalation = "open"
        self.recorder.non_finite.watch = True

    def _close_window(self) -> None:
        # Not popped here: backward() may be running inside our own mode's handler (where the
        # mode is off the stack for a moment); after_step or stop() pops it, as in deep mode.
        self.recorder.non_finite.watch = False
        self.escalation = "done"

    def explain_exception(self, exc: BaseException, where) -> list[Finding]:
        if not self._ever_active:
            return []  # dormant (watch() without deep): it saw nothing to explain with
        return super().explain_exception(exc, where)

    def nan_origin(self):
        """The first forward op of the escalated step that made a NaN/Inf (a NanOrigin), or None."""
        return self.recorder.non_finite.origin

    def zeroing_ops(self) -> list:
        """Ops of the deep steps that gave their input a zero gradient everywhere (ZeroingOp), in order."""
        return list(self.recorder.zeroing.ops.values())

    # --- events -------------------------------------------------------------------------------

    def before_backward(self, event: BackwardEvent) -> None:
        if not self._active:
            return
        try:
            self._record_backward(event)
        finally:
            if self.escalation == "open":
                self._close_window()

    def _record_backward(self, event: BackwardEvent) -> None:
        self._resume()  # an optimizer step that raised never reached after_step
        recorder = self.recorder
        losses = _loss_tensors(event.loss)
        if self._stepped:  # a new round of backward passes (several when gradients accumulate)
            self._unstepped, self._stepped = set(), False
        for loss in losses:
            for cut_id in recorder.taint_of(loss):
                cut = self._loss_cuts.setdefault(cut_id, recorder.cuts[cut_id])
                cut.backward = cut.backward or event.where
                self._unstepped.add(cut_id)
        carried.tag_named_tensors(event.index, event.where)
        self._check_data_writes(losses, event)
        recorder.forward_seen = False
        recorder.used_since_backward.clear()
        self._last_backward = event

    def before_step(self, event: StepEvent) -> None:
        # An optimizer step is torch's own no-grad work, thousands of small ops for a
        # for-loop optimizer: step out of the way instead of looking at each.
        if self._active and not self._suspended and mode_stack.on_top(self.recorder):
            self.recorder.__exit__(None, None, None)
            self._suspended = True
        if self._active:
            params = [p for group in event.optimizer.param_groups for p in group["params"]]
            trained = {id(p) for p in params}
            for cut_id in self._unstepped:
                self.recorder.cuts[cut_id].trained_ids |= trained
            self._stepped = True
            # The step edits the parameters in place: GD108 names it when a graph built before
            # it saved one of them (a GAN stepping opt_D before G_loss.backward()).
            self._versions = [(p, p._version) for p in params]

    def after_step(self, event: StepEvent) -> None:
        self.recorder.step = self.session.step
        versions, self._versions = self._versions, []
        for param, before in versions:
            if param._version != before:
                self.recorder.edits.inplace.append(InplaceEdit(
                    "step", event.where, [event.where], tuple(param.shape), before, param._version, None, True,
                    event.step, optimizer=type(event.optimizer).__name__, param_id=id(param)))
        self._resume()
        if self.escalation == "pending":
            self._open_window()
        if (self._active and self.escalation != "open" and self.deep_steps is not None
                and self.session.discovered.iterations >= self.deep_steps):
            self._pause()

    def _resume(self) -> None:
        if self._suspended:
            self._suspended = False
            self.recorder.__enter__()

    # --- answers to other observers ------------------------------------------------------------

    def cuts(self, loss=None) -> list[Cut]:
        """The cuts whose output reached `loss` (or any observed loss when None)."""
        if loss is None:
            return list(self._loss_cuts.values())
        ids: set[int] = set()
        for tensor in _loss_tensors(loss):
            ids |= self.recorder.taint_of(tensor)
        found = [self.recorder.cuts[i] for i in sorted(ids)]
        for cut in found:
            if cut.kind == FROZEN and cut.frozen_ids:
                cut.subject, cut.model_label = _frozen_subject(cut, ModelIndex(self.session.models()))
                cut.subject = cut.subject or f"{len(cut.frozen_ids)} parameters"
        return found

    # --- GD109: .data writes between forward and backward --------------------------------------

    def _check_data_writes(self, losses: list[torch.Tensor], event: BackwardEvent) -> None:
        writes = [w for w in self.recorder.edits.data_writes if w.after_forward]
        self.recorder.edits.data_writes.clear()
        if not writes:
            return
        leaves: set[int] = set()
        for loss in losses:
            leaves |= event.trace(loss).leaf_ids
        index = ModelIndex(self.session.models())
        done: set[tuple] = set()
        for write in writes:
            key = (write.location.file, write.location.line)
            if write.param_id not in leaves or key in done:
                continue
            done.add(key)
            tensor = index.params.get(write.param_id)
            name = index.name(tensor) if tensor is not None else "a tensor that requires grad"
            self._found.append(
                make(
                    "GD109",
                    f"{name} was changed through `.data` (`{write.op}`) after the forward pass that "
                    "used it and before backward(): autograd does not see `.data` edits, so the "
                    "gradient is computed from values that no longer match the weights, silently.",
                    hint="Edit weights only after `optimizer.step()` (or before the forward pass), under "
                    "`with torch.no_grad():` and without `.data`, so autograd can check the edit.",
                    subjects=[name] if tensor is not None else [],
                    related=related_at(event.where, "backward() uses the stale graph here"),
                    step=write.step,
                    evidence={"op": write.op, "after_forward": write.after_forward, "step": write.step,
                              "reached_by_backward": True},
                    **write.location.shown(),
                )
            )

    def findings(self) -> list[Finding]:
        return list(self._found)

def _frozen_subject(cut: Cut, index: ModelIndex) -> tuple[str, str]:
    """What a freeze covered, as the user names it ("all 4 parameters of `model`", or the
    parameters' names), and the model's name when one model was frozen whole."""
    params = [index.params[i] for i in cut.frozen_ids if i in index.params]
    if not params:
        return cut.subject, ""
    owners = {index.owner[id(p)] for p in params}
    whole = [label for label in sorted(owners)
             if all(id(p) in cut.frozen_ids for p in index.models[label].parameters())]
    if whole and len(whole) == len(owners):
        return " and ".join(
            f"all {len(list(index.models[label].parameters()))} parameters of `{label}`, "
            f"a {type(index.models[label]).__name__}" for label in whole), whole[0] if len(whole) == 1 else ""
    names = sorted(index.name(p) for p in params)
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else ""), ""
