"""The hot path of the numerics: gradient and update norms measured on the schedule.

Measured once per optimizer step, just before it: the norm of every gradient in
a few kernels (fused.py: one `torch._foreach_norm` on CUDA, same-shape gradients
stacked on CPU), joined with the losses into one small tensor that is read back
at a later step (readout.py): no host synchronisation in the user's step.
No per-parameter Python loop over tensor data, no per-module hook. The
update-to-weight ratio needs a copy of the weights, so it is measured on the
first steps and then every `ratio_every` steps. Each step leaves a `Reading`,
judged once its values are on the host (judging.py).
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from graddoctor.graph.naming import ModelIndex
from graddoctor.graph.readable import all_have_values, has_values
from graddoctor.locate import Location
from graddoctor.internal import known_models
from graddoctor.numerics.batch_size import batch_of
from graddoctor.numerics.fused import NormPlan, join, stack
from graddoctor.numerics.layout import Layout
from graddoctor.numerics.readout import Readout
from graddoctor.numerics.record import LayerRecord, LayerTrack, OptimizerTrack
from graddoctor.provenance.recorder import SITE
from graddoctor.session.observer import BackwardEvent, CallEvent, StepEvent

_MAX_PENDING_LOSSES = 1024
_NEAR_ZERO_LR = 1e-3  # a rate this far below its largest so far moves the weights ~1000x less: ~0


@dataclass
class Reading:
    """One measured step (or a batch of losses without one), waiting for its values."""

    step: int
    optimizer: int
    layout: Layout | None
    positions: list  # positions in layout.params of the gradients measured
    readout: Readout | None
    losses: list  # [(Location, step, batch size or None)] in order, the values are in the readout
    clips: int
    ratio: Readout | None = None
    ratio_positions: list = field(default_factory=list)  # positions of the weights in `ratio`, in its order
    lr: float = 0.0


def _batch(node) -> int | None:
    try:
        return batch_of(node)
    except (RuntimeError, AttributeError, TypeError):  # an odd node (a custom Function): the size stays unknown
        return None


class Meter:
    """Queues the step's norms, losses and clip norms as readings, and hands them to `judge`
    (judging.Judge.judge: the reading, and whether it is the last) once they can be read
    without waiting."""

    def __init__(self, record: LayerRecord, judge: Callable[[Reading, bool], None]) -> None:
        self.record = record
        self.options = record.options
        self.judge = judge
        self.pending: deque[Reading] = deque()
        self._plans: dict[tuple, NormPlan] = {}  # (layout, positions) -> how their norms are reduced
        self._losses: list[tuple[torch.Tensor, Location, int, int | None]] = []  # (loss, line, step, batch size)
        self._clips: list[torch.Tensor] = []
        self._before: dict[int, list[torch.Tensor]] = {}
        self._scaled: tuple[int, torch.Tensor] | None = None
        self._unmeasured: tuple[int, Layout] | None = None  # the optimizer whose last step went unmeasured

    def before_backward(self, event: BackwardEvent) -> None:
        record = self.record
        record.last_backward = event.where
        loss = event.loss
        if self._scaled is not None and self._scaled[0] == id(loss):
            loss = self._scaled[1]  # judge the loss the user computed, not its scaled copy
        self._scaled = None
        if isinstance(loss, torch.Tensor) and loss.numel() == 1 and loss.is_floating_point():
            node = loss.grad_fn
            record.loss_series.on_backward(event.where, node)
            if node is not None:
                # Deep mode wrote the user line that made the loss into its graph node: a
                # dictionary read, no sync. Kept per backward line for the steps after deep mode.
                meta = getattr(node, "metadata", None)
                site = meta.get(SITE) if isinstance(meta, dict) else None
                if site is not None:
                    record.loss_lines[(event.where.file, event.where.line)] = Location(site[0], site[1], None, site[2])
            if has_values(loss):  # not a DTensor's or a subclass's: those are read by their own code
                self._losses.append((loss.detach(), event.where, event.step, _batch(node)))
            if len(self._losses) > _MAX_PENDING_LOSSES:  # backward without steps: keep memory flat
                self.flush_losses()

    def on_call(self, event: CallEvent) -> None:
        if event.kind == "clip" and event.method == "clip_grad_norm_" and has_values(event.result):
            self._clips.append(event.result.detach())
        elif event.kind == "scaler" and event.method == "scale" and event.args:
            original = event.args[0]
            if isinstance(original, torch.Tensor) and isinstance(event.result, torch.Tensor):
                self._scaled = (id(event.result), original.detach())

    def before_step(self, event: StepEvent) -> None:
        self.drain(ready_only=True)
        record = self.record
        optimizer = event.optimizer
        known = record._layouts.get(id(optimizer))
        if known is not None and known.optimizer() is not optimizer:
            self._retire(id(optimizer))  # a freed optimizer's id, now another's
        track = record.optimizers.get(id(optimizer))
        if track is None:
            track = record.optimizers[id(optimizer)] = OptimizerTrack(
                where=event.where, first_step=event.step, kind=type(optimizer).__name__)
        layout = self._layout(optimizer)
        record.loss_series.on_step(id(optimizer), layout.params, layout.key_of)
        lr = max((float(g.get("lr", 0.0)) for g in optimizer.param_groups), default=0.0)
        track.steps += 1
        track.max_lr = max(track.max_lr, lr)
        if lr == 0.0:
            track.lr_zero_steps += 1
        if lr > _NEAR_ZERO_LR * track.max_lr:
            track.lr_low_from = None
        elif track.lr_low_from is None:
            track.lr_low_from, track.lr_low_value = track.steps, lr
        if not self._measure_due(track.steps):
            # The losses and clip norms of this step wait in their lists for the next measured step.
            track.unmeasured_steps += 1
            self._unmeasured = (id(optimizer), layout)
            return
        self._unmeasured = None
        grads = [p.grad for p in layout.params]
        without = bool(layout.params) and all(g is None for g in grads)
        if layout.sparse or not all_have_values(grads):  # (None has no values)
            # a missing gradient, a sparse one, or one whose storage was freed (FSDP): left out
            positions = [i for i, g in enumerate(grads) if g is not None and has_values(g)]
            grads = [grads[i] for i in positions]
        else:
            positions = layout.all_positions
        if without:  # a gradient that exists but cannot be read (sparse, freed) is not "no gradient"
            track.no_grad_steps += 1
        losses, clips = self._losses, self._clips
        self._losses, self._clips = [], []
        with torch.no_grad():
            # a few kernels, one small tensor, read back at a later step: the norm of every
            # gradient (fused.py), then the losses and clip norms
            norms, positions = self._norms(layout, positions, grads)
            extra = [t.reshape(()) for t, *_ in losses] + [c.reshape(()) for c in clips]
            pieces = norms + ([stack(extra)] if extra else [])
            readout = Readout(join(pieces)) if pieces else None
            if self._ratio_due(track):
                live = [i for i, p in enumerate(layout.params) if p.requires_grad and has_values(p)]
                if live:
                    plan = self._plan(layout, live if len(live) < len(layout.params) else layout.all_positions)
                    self._before[id(optimizer)] = (plan, plan.copy([layout.params[i] for i in live]))
        self.pending.append(
            Reading(event.step, id(optimizer), layout, positions if grads else [], readout,
                    [(w, s, n) for _, w, s, n in losses], len(clips), lr=lr)
        )

    # --- repeated iterations (session/rhythm.py) -----------------------------------------------------

    def wake_in(self, rhythm) -> int:
        """How many repeated iterations can go by with only their losses read: none while anything waits
        (a reading not yet judged, weights copied), while a symptom keeps every step measured, or when the
        iteration clips, scales or steps a scheduler (clip norms and learning rates are read each step);
        else up to the next step whose gradients are measured. Each optimizer's learning rate is held: a
        rate set by hand brings every step back."""
        if self.pending or self._before or self._clips or self.record.escalated or not rhythm.steps:
            return 0
        if not rhythm.calls.isdisjoint(("clip", "scaler", "scheduler")):
            return 0
        wake = None
        for key, per in rhythm.steps.items():
            track = self.record.optimizers.get(key)
            layout = self.record._layouts.get(key)
            optimizer = layout.optimizer() if layout is not None else None
            if track is None or optimizer is None or self._unmeasured is None:
                return 0
            rates = _rates(optimizer)
            if rates is None:
                return 0
            rhythm.hold_values(("lr", key), optimizer.param_groups, "lr")
            # the next measured step (its count k): the first past `dense_steps` at a multiple of `measure_every`
            every, k = self.options.measure_every, track.steps + 1
            if every <= 1 or k <= self.options.dense_steps:
                return 0
            j = (-(-k // every) * every - k) // per  # in whole iterations of `per` steps from now
            wake = j if wake is None else min(wake, j)
        return 0 if wake is None else wake

    def resync(self, skipped: int, prefix: tuple, rhythm) -> None:
        """The steps that went by unmeasured, each with the learning rate held: counted as `before_step` counts."""
        for key, per in rhythm.steps.items():
            n = skipped * per + sum(1 for k in prefix if k[0] == "step" and k[1] == key)
            track = self.record.optimizers.get(key)
            if track is None or not n:
                continue
            track.steps += n
            track.unmeasured_steps += n
            if self._lr(key) == 0.0:  # as before_step counts it; lr_low_from and max_lr stay as they are
                track.lr_zero_steps += n
            layout = self.record._layouts.get(key)
            if layout is not None:
                self._unmeasured = (key, layout)

    def _lr(self, key: int) -> float:
        layout = self.record._layouts.get(key)
        optimizer = layout.optimizer() if layout is not None else None
        rates = _rates(optimizer) if optimizer is not None else None
        return max(rates, default=0.0) if rates else 0.0

    def after_step(self, event: StepEvent) -> None:
        before = self._before.pop(id(event.optimizer), None)
        if before is None or not self.pending:
            return
        layout = self.record._layouts[id(event.optimizer)]
        plan, copy = before
        with torch.no_grad():
            live = [layout.params[i] for i in plan.given]
            if not all_have_values(live):  # storage freed during the step (FSDP): no ratio
                return
            self.pending[-1].ratio = Readout(join(plan.change_norms(copy, live)))
            self.pending[-1].ratio_positions = plan.positions

    def _norms(self, layout: Layout, positions: list[int], grads: list[torch.Tensor]) -> tuple[list, list[int]]:
        """The norm of each gradient as 1-D tensors, and the positions they are in (the plan's order)."""
        if not grads:
            return [], positions
        plan = self._plan(layout, positions)
        try:
            return plan.norms(grads), plan.positions
        except RuntimeError:
            self._plans.pop(self._plan_key(layout, positions), None)  # a parameter changed shape, or a sparse gradient
            if any(g.is_sparse for g in grads):
                layout.sparse = True  # sparse embedding gradients: measured without them from now on
                positions = [i for i, g in zip(positions, grads) if not g.is_sparse]
                grads = [g for g in grads if not g.is_sparse]
                if not grads:
                    return [], positions
            return [stack(list(torch._foreach_norm(grads)))], positions

    def _plan(self, layout: Layout, positions: list[int]) -> NormPlan:
        key = self._plan_key(layout, positions)
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) > 64:  # presence patterns that keep changing: keep memory flat
                self._plans.clear()
            plan = self._plans[key] = NormPlan(positions, [layout.params[i] for i in positions])
        return plan

    @staticmethod
    def _plan_key(layout: Layout, positions: list[int]) -> tuple:
        return id(layout), None if positions is layout.all_positions else tuple(positions)

    def _measure_due(self, steps: int) -> bool:
        """Whether this step's gradients are measured: every step of the run's first
        `dense_steps` and after a symptom, then every `measure_every`-th (options.py)."""
        every = self.options.measure_every
        return every <= 1 or steps <= self.options.dense_steps or self.record.escalated or steps % every == 0

    def _ratio_due(self, track: OptimizerTrack) -> bool:
        every = self.options.ratio_every
        if track.steps <= 3 or (every > 0 and track.steps - track.last_ratio_step >= every):
            track.last_ratio_step = track.steps
            return True
        return False

    def _layout(self, optimizer: torch.optim.Optimizer) -> Layout:
        record = self.record
        layout = record._layouts.get(id(optimizer))
        shape = tuple(len(g["params"]) for g in optimizer.param_groups)
        if layout is not None and layout.shape == shape and layout.optimizer() is optimizer:
            return layout
        # FSDP2 shards parameters as DTensors: a rank holds a slice, and reading a whole one is a
        # collective, which a watcher must never issue. Their statistics are left out.
        params = [p for group in optimizer.param_groups for p in group["params"] if not _is_dtensor(p)]
        if (layout is None or len(layout.params) != len(params)
                or any(a is not b for a, b in zip(layout.params, params))):
            index = ModelIndex(known_models(record.session))
            layout = Layout(params, index)
            for key in [k for k, known in record._layouts.items() if known.optimizer() is None]:
                self._retire(key)  # a model and optimizer rebuilt per fold: let the old ones go
            record._layouts[id(optimizer)] = layout
            for key, name in zip(layout.layer_keys, layout.layer_names):
                record.provisional.setdefault(key, name)
                record.layers.setdefault(key, LayerTrack())
        layout.shape, layout.optimizer = shape, weakref.ref(optimizer)
        return layout

    def _retire(self, key: int) -> None:
        """An optimizer that was freed: its readings are judged on its own track first, and its
        parameters are let go."""
        self.drain(ready_only=False)  # readings of the freed optimizer are judged on its own track
        self._before.pop(key, None)
        if self._unmeasured is not None and self._unmeasured[0] == key:
            self._unmeasured = None
        self.record.retire(key)

    def flush_losses(self, final: bool = False) -> None:
        """Queue the losses that wait for a measured step as a reading of their own."""
        losses, self._losses = self._losses, []
        with torch.no_grad():
            readout = Readout(stack([t.reshape(()) for t, *_ in losses]))
        optimizer, layout = -1, None
        if final and self._unmeasured is not None:
            # the run's last steps went unmeasured: their losses still belong to that optimizer's series
            optimizer, layout = self._unmeasured
        self.pending.append(Reading(self.record.session.step, optimizer, layout, [], readout,
                                    [(w, s, n) for _, w, s, n in losses], 0))

    def stop(self) -> None:
        """The session ends: the weight copies of a step that will not end are let go, the rest judged."""
        self._before.clear()
        self.finish()

    def finish(self) -> None:
        """Judge everything measured, also what waits for a step that will not come."""
        if self._losses:
            self.flush_losses(final=True)
        self.drain(ready_only=False)

    def drain(self, ready_only: bool) -> None:
        """Judge the readings whose values are on the host (all of them unless `ready_only`)."""
        while self.pending:
            reading = self.pending[0]
            if ready_only and not all(r is None or r.ready() for r in (reading.readout, reading.ratio)):
                return
            self.pending.popleft()
            self.judge(reading, not ready_only and not self.pending)


def _rates(optimizer) -> tuple | None:
    """Each param group's learning rate as a float (None when one is a tensor: not held, read each step)."""
    rates = []
    for group in optimizer.param_groups:
        rate = group.get("lr", 0.0)
        if not isinstance(rate, (int, float)):
            return None
        rates.append(rate)
    return rates


def _is_dtensor(t: torch.Tensor) -> bool:
    return type(t).__name__ == "DTensor" or type(getattr(t, "data", None)).__name__ == "DTensor"
