"""Per-layer gradient statistics, judged by the numerics judges (numerics/judging.py).

Measured once per optimizer step, just before it: the norm of every gradient in
a few kernels (fused.py: one `torch._foreach_norm` on CUDA, same-shape gradients
stacked on CPU), joined with the losses into one small tensor that is read back
at a later step (readout.py): no host synchronisation in the user's step.
No per-parameter Python loop over tensor data, no per-module hook. The
update-to-weight ratio needs a copy of the weights, so it is measured on the
first steps and then every `ratio_every` steps.

Longer than our ~300-line habit on purpose: the hot path (`before_step`, what it
queues) and the off-path reading of those queues share one private layout of
positions and tracks, and splitting them would make that layout a public
interface. The judging itself is in each code's `rules/<family>/gdNNN_*/judge.py`.
"""

from __future__ import annotations

import math
import weakref
from collections import deque
from dataclasses import dataclass, field

import torch

from graddoctor.finding import Finding
from graddoctor.locate import NOWHERE, Location
from graddoctor.graph.naming import ModelIndex
from graddoctor.internal import known_models
from graddoctor.numerics.fused import NormPlan, join, stack
from graddoctor.numerics.layout import Layout, layer_names_now
from graddoctor.numerics.loss_series import LossSeriesBook
from graddoctor.numerics.options import NumericsOptions
from graddoctor.numerics.readout import Readout
from graddoctor.numerics.judging import CODES, numerics_findings
from graddoctor.rules.graph.gd111_gradient_always_zero.judge import note_zero_gradients
from graddoctor.provenance.recorder import SITE
from graddoctor.report.layers import LayerRow
from graddoctor.session.observer import BackwardEvent, CallEvent, DeepRecording, LoopEvidence, Observer, StepEvent

_MAX_PENDING_LOSSES = 1024


@dataclass
class LayerTrack:
    """What is kept per layer: running values only, plus a bounded history."""

    last: float | None = None
    max: float = 0.0
    total: float = 0.0
    count: int = 0
    has_grad: bool = False
    ratio: float | None = None
    vanishing: int = 0
    judged: int = 0
    last_finite: float | None = None  # the norm at the last step it was finite
    nonfinite_since: int | None = None  # the step from which it has been NaN/Inf (None while finite)
    # the weights were exactly zero when first measured (a zero-initialised table or head): their
    # update/weight ratio counts steps taken from 0, so GD305 leaves them out of the totals
    from_zero: bool | None = None


@dataclass
class OptimizerTrack:
    where: Location = NOWHERE  # the first step line
    first_step: int = 1  # the run's number of its first step
    steps: int = 0
    no_grad_steps: int = 0
    zero_grad_steps: int = 0
    lr_zero_steps: int = 0
    unmeasured_steps: int = 0  # steps whose gradients were not measured (options.measure_every)
    last_ratio_step: int = 0
    ratios: deque = field(default_factory=lambda: deque(maxlen=32))  # (ratio, lr) of the last measured steps
    max_lr: float = 0.0
    kind: str = ""  # the optimizer's class name (GD305 judges adaptive ones on their first steps)
    early: list = field(default_factory=list)  # (ratio, lr) of the first 3 measured steps

    def on_every_measured_step(self, count: int) -> bool:
        """Whether `count` steps (with no gradient, with zero gradients...) are every step whose
        gradients were measured, and there was at least one."""
        return count > 0 and count + self.unmeasured_steps == self.steps


@dataclass
class _Reading:
    step: int
    optimizer: int
    layout: Layout
    positions: list  # positions in layout.params of the gradients measured
    readout: Readout | None
    losses: list  # [(Location, step)] in order, the values are in the readout
    clips: int
    ratio: Readout | None = None
    ratio_positions: list = field(default_factory=list)  # positions of the weights in `ratio`, in its order
    lr: float = 0.0


class LayerStats(Observer):
    """Gradient norms per layer per step, and what they say about the run.

    `deep` (deep mode) is asked for one deep step after a NaN/Inf, and for what it
    saw (the op that made it, ops that zero a gradient); `loop` (the loop audit)
    for the evidence that explains a stalled loss. Either may be absent.
    """

    name = "layers"
    codes = CODES

    def __init__(self, options: NumericsOptions | None = None, *, deep: DeepRecording | None = None,
                 loop: LoopEvidence | None = None, **opts) -> None:
        self.options = options or NumericsOptions.take(opts)
        if opts:
            raise TypeError(f"unknown numerics option(s): {', '.join(sorted(opts))}")
        self.deep = deep
        self.loop = loop
        self.layers: dict[int, LayerTrack] = {}  # by layer key (see Layout.layer_keys)
        self.history: deque = deque(maxlen=self.options.history)  # (step, [(layer key, norm)])
        self._provisional: dict[int, str] = {}  # names as known when the layer was first seen
        self.optimizers: dict[int, OptimizerTrack] = {}
        self._layouts: dict[int, Layout] = {}
        self._plans: dict[tuple, NormPlan] = {}  # (layout, positions) -> how their norms are reduced
        self._pending: deque[_Reading] = deque()
        self._losses: list[tuple[torch.Tensor, Location, int]] = []
        self._clips: list[torch.Tensor] = []
        self._before: dict[int, list[torch.Tensor]] = {}
        self._scaled: tuple[int, torch.Tensor] | None = None
        self.measured = 0
        self._last_layer_step = 0
        self._retired = 0  # optimizers freed during the run (their tracks are kept under -1, -2...)
        self._unmeasured: tuple[int, Layout] | None = None  # the optimizer whose last step went unmeasured
        # loss series per backward line and optimizer (GD306), per optimizer step
        self.loss_series = LossSeriesBook()
        self.first_bad_loss: tuple[int, Location, float] | None = None
        self.first_bad_grad: tuple[int, Location, list[str], list[str]] | None = None
        self.norms_first: list[float] = []
        self.worst: tuple[float, int, list[str]] | None = None  # total norm, step, top layers (after step 5)
        self.worst_absolute = 0.0
        self.worst_first: tuple[float, int, list[str]] | None = None
        self.escalated = False
        self.last_backward: Location = NOWHERE
        self.loss_lines: dict[tuple, Location] = {}  # backward line -> the line that made its loss (deep mode)

    # --- hot path ---------------------------------------------------------------------------

    def before_backward(self, event: BackwardEvent) -> None:
        self.last_backward = event.where
        loss = event.loss
        if self._scaled is not None and self._scaled[0] == id(loss):
            loss = self._scaled[1]  # judge the loss the user computed, not its scaled copy
        self._scaled = None
        if isinstance(loss, torch.Tensor) and loss.numel() == 1 and loss.is_floating_point():
            node = loss.grad_fn
            self.loss_series.on_backward(event.where, node)
            if node is not None:
                # Deep mode wrote the user line that made the loss into its graph node: a
                # dictionary read, no sync. Kept per backward line for the steps after deep mode.
                meta = getattr(node, "metadata", None)
                site = meta.get(SITE) if isinstance(meta, dict) else None
                if site is not None:
                    self.loss_lines[(event.where.file, event.where.line)] = Location(site[0], site[1], None, site[2])
            self._losses.append((loss.detach(), event.where, event.step))
            if len(self._losses) > _MAX_PENDING_LOSSES:  # backward without steps: keep memory flat
                self._flush_losses()

    def on_call(self, event: CallEvent) -> None:
        if event.kind == "clip" and event.method == "clip_grad_norm_" and isinstance(event.result, torch.Tensor):
            self._clips.append(event.result.detach())
        elif event.kind == "scaler" and event.method == "scale" and event.args:
            original = event.args[0]
            if isinstance(original, torch.Tensor) and isinstance(event.result, torch.Tensor):
                self._scaled = (id(event.result), original.detach())

    def before_step(self, event: StepEvent) -> None:
        self._drain(ready_only=True)
        optimizer = event.optimizer
        known = self._layouts.get(id(optimizer))
        if known is not None and known.optimizer() is not optimizer:
            self._retire(id(optimizer))  # a freed optimizer's id, now another's
        track = self.optimizers.get(id(optimizer))
        if track is None:
            track = self.optimizers[id(optimizer)] = OptimizerTrack(
                where=event.where, first_step=event.step, kind=type(optimizer).__name__)
        layout = self._layout(optimizer)
        self.loss_series.on_step(id(optimizer), layout.params, layout.key_of)
        lr = max((float(g.get("lr", 0.0)) for g in optimizer.param_groups), default=0.0)
        track.steps += 1
        track.max_lr = max(track.max_lr, lr)
        if lr == 0.0:
            track.lr_zero_steps += 1
        if not self._measure_due(track.steps):
            # The losses and clip norms of this step wait in their lists for the next measured step.
            track.unmeasured_steps += 1
            self._unmeasured = (id(optimizer), layout)
            return
        self._unmeasured = None
        grads = [p.grad for p in layout.params]
        if any(g is None for g in grads) or layout.sparse:
            positions = [i for i, g in enumerate(grads) if g is not None and not g.is_sparse]
            grads = [grads[i] for i in positions]
        else:
            positions = layout.all_positions
        if not grads and layout.params:  # no params at all: every one is an FSDP2 shard, unread
            track.no_grad_steps += 1
        losses, clips = self._losses, self._clips
        self._losses, self._clips = [], []
        with torch.no_grad():
            # a few kernels, one small tensor, read back at a later step: the norm of every
            # gradient (fused.py), then the losses and clip norms
            norms, positions = self._norms(layout, positions, grads)
            extra = [t.reshape(()) for t, _, _ in losses] + [c.reshape(()) for c in clips]
            pieces = norms + ([stack(extra)] if extra else [])
            readout = Readout(join(pieces)) if pieces else None
            if self._ratio_due(track):
                live = [i for i, p in enumerate(layout.params) if p.requires_grad]
                if live:
                    plan = self._plan(layout, live if len(live) < len(layout.params) else layout.all_positions)
                    self._before[id(optimizer)] = (plan, plan.copy([layout.params[i] for i in live]))
        self._pending.append(
            _Reading(event.step, id(optimizer), layout, positions if grads else [], readout,
                     [(w, s) for _, w, s in losses], len(clips), lr=lr)
        )

    def after_step(self, event: StepEvent) -> None:
        before = self._before.pop(id(event.optimizer), None)
        if before is None or not self._pending:
            return
        layout = self._layouts[id(event.optimizer)]
        plan, copy = before
        with torch.no_grad():
            live = [layout.params[i] for i in plan.given]
            self._pending[-1].ratio = Readout(join(plan.change_norms(copy, live)))
            self._pending[-1].ratio_positions = plan.positions

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
        return every <= 1 or steps <= self.options.dense_steps or self.escalated or steps % every == 0

    def _ratio_due(self, track: OptimizerTrack) -> bool:
        every = self.options.ratio_every
        if track.steps <= 3 or (every > 0 and track.steps - track.last_ratio_step >= every):
            track.last_ratio_step = track.steps
            return True
        return False

    def _layout(self, optimizer: torch.optim.Optimizer) -> Layout:
        layout = self._layouts.get(id(optimizer))
        shape = tuple(len(g["params"]) for g in optimizer.param_groups)
        if layout is not None and layout.shape == shape and layout.optimizer() is optimizer:
            return layout
        # FSDP2 shards parameters as DTensors: a rank holds a slice, and reading a whole one is a
        # collective, which a watcher must never issue. Their statistics are left out.
        params = [p for group in optimizer.param_groups for p in group["params"] if not _is_dtensor(p)]
        if layout is None or len(layout.params) != len(params) or any(a is not b for a, b in zip(layout.params, params)):
            index = ModelIndex(known_models(self.session))
            layout = Layout(params, index)
            for key in [k for k, known in self._layouts.items() if known.optimizer() is None]:
                self._retire(key)  # a model and optimizer rebuilt per fold: let the old ones go
            self._layouts[id(optimizer)] = layout
            for key, name in zip(layout.layer_keys, layout.layer_names):
                self._provisional.setdefault(key, name)
                self.layers.setdefault(key, LayerTrack())
        layout.shape, layout.optimizer = shape, weakref.ref(optimizer)
        return layout

    def _retire(self, key: int) -> None:
        """An optimizer that was freed: its track keeps its findings under a key of its own (its id
        may be the next optimizer's), its parameters are let go, and the layers no live optimizer
        holds leave the per-layer statistics (their ids, too, may be reused)."""
        self._drain(ready_only=False)  # readings of the freed optimizer are judged on its own track
        self._retired += 1
        track = self.optimizers.pop(key, None)
        if track is not None:
            self.optimizers[-self._retired] = track
            self.loss_series.retire(key, -self._retired)
        self._before.pop(key, None)
        if self._unmeasured is not None and self._unmeasured[0] == key:
            self._unmeasured = None
        layout = self._layouts.pop(key, None)
        if layout is not None:
            live = {k for other in self._layouts.values() for k in other.layer_keys}
            for layer in set(layout.layer_keys) - live:
                self.layers.pop(layer, None)
                self._provisional.pop(layer, None)

    def _flush_losses(self, final: bool = False) -> None:
        losses, self._losses = self._losses, []
        with torch.no_grad():
            readout = Readout(stack([t.reshape(()) for t, _, _ in losses]))
        optimizer, layout = -1, None
        if final and self._unmeasured is not None:
            # the run's last steps went unmeasured: their losses still belong to that optimizer's series
            optimizer, layout = self._unmeasured
        self._pending.append(_Reading(self.session.step, optimizer, layout, [], readout,
                                      [(w, s) for _, w, s in losses], 0))

    # --- off the hot path: turning readings into judgements -------------------------------------

    def _drain(self, ready_only: bool) -> None:
        while self._pending:
            reading = self._pending[0]
            if ready_only and not all(r is None or r.ready() for r in (reading.readout, reading.ratio)):
                return
            self._pending.popleft()
            self._judge(reading, last=not ready_only and not self._pending)

    def _judge(self, reading: _Reading, last: bool = False) -> None:
        values = reading.readout.values() if reading.readout is not None else []
        layout = reading.layout
        n = len(reading.positions)
        loss_values = values[n:n + len(reading.losses)]
        clip_values = values[n + len(reading.losses):]
        self._judge_losses(reading, loss_values)
        if layout is None:
            return
        track = self.optimizers[reading.optimizer]
        if n:
            if last or self._layer_due(reading.step) or not self._judge_total(reading, values[:n], clip_values, track):
                self._judge_grads(reading, _per_layer(layout, reading.positions, values[:n]), clip_values, track)
            note_zero_gradients(layout, reading.positions, values[:n])
        if reading.ratio is not None:
            self._judge_ratio(reading, reading.ratio.values(), track)

    def _judge_losses(self, reading: _Reading, values: list[float]) -> None:
        finite = []
        for value, (where, step) in zip(values, reading.losses):
            if math.isfinite(value):
                finite.append(value)
            elif self.first_bad_loss is None:
                self.first_bad_loss = (step, where, value)
                self._escalate(f"non-finite loss ({value}) at step {step}", where)
        if finite and reading.layout is not None:
            self.loss_series.add_reading(reading.optimizer, reading.losses, values)

    def _layer_due(self, step: int) -> bool:
        every = self.options.layer_every
        if step <= 10 or every <= 1 or step - self._last_layer_step >= every:
            self._last_layer_step = step
            return True
        return False

    def _judge_total(self, reading: _Reading, norms: list[float], clips: list[float], track: OptimizerTrack) -> bool:
        """A step judged by its total norm alone; False when it needs the per-layer detail (a symptom)."""
        total_sq = sum([v * v for v in norms])
        if not math.isfinite(total_sq) or len(self.norms_first) < 5:
            return False  # which layer is non-finite; the first steps' norms
        total = math.sqrt(total_sq)
        raw = max([total] + [c for c in clips if math.isfinite(c)])
        if (reading.step > 5 and (self.worst is None or raw > self.worst[0])) or \
                (raw > self.options.explode_norm and self.worst_first is None):
            return False  # a new largest norm: its top layers are named
        if total == 0.0:
            track.zero_grad_steps += 1
        if self.worst_absolute < raw:
            self.worst_absolute = raw
        return True

    def _judge_grads(self, reading: _Reading, layer_sq: list[float], clips: list[float], track: OptimizerTrack) -> None:
        layout = reading.layout
        names = layout.layer_keys
        total_sq, bad, rms = 0.0, [], []
        history = []
        for i, sq in enumerate(layer_sq):
            if sq is None:
                continue
            if not math.isfinite(sq):
                bad.append(i)
                continue
            total_sq += sq
            norm = math.sqrt(sq)
            layer = self.layers[names[i]]
            layer.last = layer.last_finite = norm
            layer.nonfinite_since = None
            layer.max = max(layer.max, norm)
            layer.total += norm
            layer.count += 1
            layer.has_grad = True
            history.append((names[i], norm))
            if norm > 0:
                rms.append((layout.rms(i, norm), i))
        if bad:
            for i in bad:
                self.layers[names[i]].has_grad = True
                # The report's layer table and chart say NaN/Inf, not "no value" (max and
                # the running mean keep the finite steps only).
                self.layers[names[i]].last = math.sqrt(layer_sq[i]) if layer_sq[i] > 0 else math.nan
                if self.layers[names[i]].nonfinite_since is None:
                    self.layers[names[i]].nonfinite_since = reading.step  # numbered as GD302 numbers it
            if self.first_bad_grad is None:
                # Backward runs from the loss towards the inputs: the non-finite layer
                # registered last (nearest the loss) is where it appeared first.
                first = layout.layer_names[bad[-1]]
                params = [layout.param_names[j] for j, layer in enumerate(layout.layer_of) if layer == bad[-1]]
                self.first_bad_grad = (reading.step, self.last_backward, [first], params)
                self._escalate(f"non-finite gradient in {first} at step {reading.step}", self.last_backward)
            return
        self.history.append((reading.step, history))
        total = math.sqrt(total_sq)
        if total == 0.0:
            track.zero_grad_steps += 1
        raw = max([total] + [c for c in clips if math.isfinite(c)])
        if len(self.norms_first) < 5:
            self.norms_first.append(raw)
        if self.worst_absolute < raw:
            self.worst_absolute = raw
        # growth is judged after the first steps, against their median
        if len(self.norms_first) >= 5 and reading.step > 5 and (self.worst is None or raw > self.worst[0]):
            top = sorted(rms, reverse=True)[:3]
            self.worst = (raw, reading.step, [names[i] for _, i in top])
        if raw > self.options.explode_norm and self.worst_first is None:
            top = sorted(rms, reverse=True)[:3]
            self.worst_first = (raw, reading.step, [names[i] for _, i in top])
        if len(rms) >= 3:
            # against the upper quartile: the rest of the network, robust to one loud layer
            ordered = sorted(v for v, _ in rms)
            reference = ordered[(3 * len(ordered)) // 4]
            for value, i in rms:
                layer = self.layers[names[i]]
                layer.judged += 1
                if value < self.options.vanish_ratio * reference:
                    layer.vanishing += 1

    def _judge_ratio(self, reading: _Reading, values: list[float], track: OptimizerTrack) -> None:
        layout = reading.layout
        live = reading.ratio_positions
        half = len(values) // 2
        d = [v or 0.0 for v in _per_layer(layout, live, values[:half])]
        w = [v or 0.0 for v in _per_layer(layout, live, values[half:])]
        dt = wt = 0.0
        measured = {layout.layer_of[p] for p in live}
        for i, name in enumerate(layout.layer_keys):
            if i not in measured:
                continue
            layer = self.layers[name]
            if layer.from_zero is None:
                layer.from_zero = w[i] == 0
            if w[i] > 0 and math.isfinite(d[i]):
                layer.ratio = math.sqrt(d[i] / w[i])
            if not layer.from_zero:
                dt, wt = dt + d[i], wt + w[i]
        if wt > 0 and math.isfinite(dt):
            track.ratios.append((math.sqrt(dt / wt), reading.lr))
            if len(track.early) < 3:
                track.early.append(track.ratios[-1])
        self.measured += 1

    def loss_line(self, backward: Location) -> Location | None:
        """The line that computed the loss passed to backward() at `backward`, when deep mode saw it."""
        return self.loss_lines.get((backward.file, backward.line))

    def _escalate(self, reason: str, where: Location) -> None:
        """Ask deep mode to record the next step, to find the op behind the symptom."""
        if not self.escalated:
            self.escalated = True
            self.session.consult(self.deep, lambda deep: deep.on_deep_request(reason, where), False)

    # --- results ----------------------------------------------------------------------------

    def stop(self) -> None:
        self._before.clear()
        if self._losses:
            self._flush_losses(final=True)
        self._drain(ready_only=False)

    def findings(self) -> list[Finding]:
        if self._losses:
            self._flush_losses(final=True)
        self._drain(ready_only=False)
        return numerics_findings(self)

    def names(self) -> dict[int, str]:
        """Layer key -> the layer's name as the models are named now."""
        out = dict(self._provisional)
        for key, name, _, _ in layer_names_now(known_models(self.session)):
            out[key] = name
        return out

    def layouts(self) -> list[Layout]:
        return list(self._layouts.values())

    def layer_rows(self) -> list[LayerRow]:
        return self.rows()

    def layer_name(self, key: int) -> str:
        return self.names().get(key, str(key))

    def rows(self) -> list[LayerRow]:
        """One row per module that owns parameters (of the known models and optimizers)."""
        entries = layer_names_now(known_models(self.session))
        known = {key for key, _, _, _ in entries}
        counts: dict[int, int] = {}
        for layout in self._layouts.values():
            for i in layout.layer_of:
                key = layout.layer_keys[i]
                counts[key] = counts.get(key, 0) + 1
        entries += [(key, self._provisional.get(key, str(key)), n, None) for key, n in counts.items() if key not in known]
        rows: list[LayerRow] = []
        for key, name, n, kind in entries:
            track = self.layers.get(key)
            if key not in counts and not (track and track.has_grad):
                # held by no optimizer and never given a gradient: a frozen teacher, the template layer
                # nn.TransformerEncoder deep-copies. Not a "no gradient" problem, so no red row.
                continue
            rows.append(LayerRow(
                name=name,
                params=n,
                grad_norm=track.last if track else None,
                grad_norm_max=track.max if track and track.has_grad else None,
                update_ratio=track.ratio if track else None,
                has_grad=bool(track and track.has_grad),
                kind=kind,
                last_finite=track.last_finite if track else None,
                nonfinite_from=track.nonfinite_since if track else None,
            ))
        return rows


def _per_layer(layout: Layout, positions: list[int], norms: list[float]) -> list[float | None]:
    """Per layer: the sum of squared norms of its measured parameters (None: none measured)."""
    out: list[float | None] = [None] * len(layout)
    layer_of = layout.layer_of
    for pos, norm in zip(positions, norms):
        i = layer_of[pos]
        prev = out[i]
        out[i] = norm * norm if prev is None else prev + norm * norm
    return out


def _is_dtensor(t: torch.Tensor) -> bool:
    return type(t).__name__ == "DTensor" or type(getattr(t, "data", None)).__name__ == "DTensor"
