"""Off the hot path: a step's readings, once on the host, turned into the run's record.

Per step: the losses (a non-finite one escalates to deep mode), then the gradient
norms, by their total alone when nothing stands out, else per layer (vanishing
layers, the largest norms and their top layers, the first non-finite layer), and the
update/weight ratio when it was measured. What the rules judge at the end is read
from the record (record.py), never from here.
"""

from __future__ import annotations

import math

from graddoctor.locate import Location
from graddoctor.numerics.layout import Layout
from graddoctor.numerics.meter import Reading
from graddoctor.numerics.record import LayerRecord, OptimizerTrack
from graddoctor.session.rhythm import disrupt


class Judge:
    def __init__(self, record: LayerRecord) -> None:
        self.record = record
        self.options = record.options
        self._last_layer_step = 0

    def judge(self, reading: Reading, last: bool = False) -> None:
        values = reading.readout.values() if reading.readout is not None else []
        layout = reading.layout
        n = len(reading.positions)
        loss_values = values[n:n + len(reading.losses)]
        clip_values = values[n + len(reading.losses):]
        self.losses(reading, loss_values)
        if layout is None:
            return
        track = self.record.optimizers[reading.optimizer]
        if n:
            if last or self._layer_due(reading.step) or not self.total(reading, values[:n], clip_values, track):
                self.grads(reading, per_layer(layout, reading.positions, values[:n]), clip_values, track)
            layout.note_zero_gradients(reading.positions, values[:n])
        if reading.ratio is not None:
            self.ratio(reading, reading.ratio.values(), track)

    def losses(self, reading: Reading, values: list[float]) -> None:
        record = self.record
        finite = []
        for value, (where, step, _) in zip(values, reading.losses):
            if math.isfinite(value):
                finite.append(value)
            elif record.first_bad_loss is None:
                record.first_bad_loss = (step, where, value)
                self._escalate(f"non-finite loss ({value}) at step {step}", where)
        if finite and reading.layout is not None:
            record.loss_series.add_reading(reading.optimizer, reading.losses, values)

    def _layer_due(self, step: int) -> bool:
        every = self.options.layer_every
        if step <= 10 or every <= 1 or step - self._last_layer_step >= every:
            self._last_layer_step = step
            return True
        return False

    def total(self, reading: Reading, norms: list[float], clips: list[float], track: OptimizerTrack) -> bool:
        """A step judged by its total norm alone; False when it needs the per-layer detail (a symptom)."""
        record = self.record
        total_sq = sum([v * v for v in norms])
        if not math.isfinite(total_sq) or len(record.norms_first) < 5:
            return False  # which layer is non-finite; the first steps' norms
        total = math.sqrt(total_sq)
        raw = max([total] + [c for c in clips if math.isfinite(c)])
        if (reading.step > 5 and (record.worst is None or raw > record.worst[0])) or \
                (raw > self.options.explode_norm and record.worst_first is None):
            return False  # a new largest norm: its top layers are named
        if total == 0.0:
            track.zero_grad_steps += 1
        if record.worst_absolute < raw:
            record.worst_absolute = raw
        return True

    def grads(self, reading: Reading, layer_sq: list[float], clips: list[float], track: OptimizerTrack) -> None:
        record = self.record
        layers = record.layers
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
            layer = layers[names[i]]
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
                layers[names[i]].has_grad = True
                # The report's layer table and chart say NaN/Inf, not "no value" (max and
                # the running mean keep the finite steps only).
                layers[names[i]].last = math.sqrt(layer_sq[i]) if layer_sq[i] > 0 else math.nan
                if layers[names[i]].nonfinite_since is None:
                    layers[names[i]].nonfinite_since = reading.step  # numbered as GD302 numbers it
            if record.first_bad_grad is None:
                # Backward runs from the loss towards the inputs: the non-finite layer
                # registered last (nearest the loss) is where it appeared first.
                first = layout.layer_names[bad[-1]]
                params = [layout.param_names[j] for j, layer in enumerate(layout.layer_of) if layer == bad[-1]]
                record.first_bad_grad = (reading.step, record.last_backward, [first], params)
                self._escalate(f"non-finite gradient in {first} at step {reading.step}", record.last_backward)
            return
        record.history.append((reading.step, history))
        total = math.sqrt(total_sq)
        if total == 0.0:
            track.zero_grad_steps += 1
        raw = max([total] + [c for c in clips if math.isfinite(c)])
        if len(record.norms_first) < 5:
            record.norms_first.append(raw)
        if record.worst_absolute < raw:
            record.worst_absolute = raw
        # growth is judged after the first steps, against their median
        if len(record.norms_first) >= 5 and reading.step > 5 and (record.worst is None or raw > record.worst[0]):
            top = sorted(rms, reverse=True)[:3]
            record.worst = (raw, reading.step, [names[i] for _, i in top])
        if raw > self.options.explode_norm and record.worst_first is None:
            top = sorted(rms, reverse=True)[:3]
            record.worst_first = (raw, reading.step, [names[i] for _, i in top])
        if len(rms) >= 3:
            # against the upper quartile: the rest of the network, robust to one loud layer
            ordered = sorted(v for v, _ in rms)
            reference = ordered[(3 * len(ordered)) // 4]
            for value, i in rms:
                layer = layers[names[i]]
                layer.judged += 1
                if value < self.options.vanish_ratio * reference:
                    layer.vanishing += 1

    def ratio(self, reading: Reading, values: list[float], track: OptimizerTrack) -> None:
        layout = reading.layout
        live = reading.ratio_positions
        half = len(values) // 2
        d = [v or 0.0 for v in per_layer(layout, live, values[:half])]
        w = [v or 0.0 for v in per_layer(layout, live, values[half:])]
        dt = wt = 0.0
        measured = {layout.layer_of[p] for p in live}
        step_ratios = []
        for i, name in enumerate(layout.layer_keys):
            if i not in measured:
                continue
            layer = self.record.layers[name]
            if layer.from_zero is None:
                layer.from_zero = w[i] == 0
            if w[i] > 0 and math.isfinite(d[i]):
                layer.ratio = math.sqrt(d[i] / w[i])
                if not layer.from_zero:
                    step_ratios.append((layer.ratio, layer))
            if not layer.from_zero:
                dt, wt = dt + d[i], wt + w[i]
        relative_updates(step_ratios)
        if wt > 0 and math.isfinite(dt):
            track.ratios.append((math.sqrt(dt / wt), reading.lr))
            if len(track.early) < 3:
                track.early.append(track.ratios[-1])
        self.record.measured += 1

    def _escalate(self, reason: str, where: Location) -> None:
        """Ask deep mode to record the next step, to find the op behind the symptom."""
        record = self.record
        if not record.escalated:
            record.escalated = True
            disrupt(record.session)  # a symptom: every observer sees every step again
            record.session.consult(record.deep, lambda deep: deep.on_deep_request(reason, where), False)


def relative_updates(step_ratios: list) -> None:
    """Note each layer's update/weight ratio of this step relative to the upper-quartile layer's.

    The upper quartile, as for gradients: the rest of the network, robust to one loud layer.
    Layers that did not move at all this step (a frozen group, lr 0) say nothing about the others.
    """
    moving = sorted(r for r, _ in step_ratios if r > 0)
    if len(moving) < 3:
        return
    reference = moving[(3 * len(moving)) // 4]
    for ratio, layer in step_ratios:
        layer.update_relative.append(ratio / reference)


def per_layer(layout: Layout, positions: list[int], norms: list[float]) -> list[float | None]:
    """Per layer: the sum of squared norms of its measured parameters (None: none measured)."""
    out: list[float | None] = [None] * len(layout)
    layer_of = layout.layer_of
    for pos, norm in zip(positions, norms):
        i = layer_of[pos]
        prev = out[i]
        out[i] = norm * norm if prev is None else prev + norm * norm
    return out
