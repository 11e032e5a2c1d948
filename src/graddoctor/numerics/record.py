"""What the numerics keep of a run: per-layer and per-optimizer series, and the judges' inputs.

Filled off the hot path by judging.py from the meter's readings (meter.py); read at the
end by the numerics judges (each rule's judge.py, which take this record as `stats`), and by
the layer table (layer_rows.py). Running values and bounded histories only.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from graddoctor.locate import NOWHERE, Location
from graddoctor.numerics.layout import Layout, layer_names_now
from graddoctor.numerics.loss_series import LossSeriesBook
from graddoctor.numerics.options import NumericsOptions
from graddoctor.session.observer import DeepRecording, LoopEvidence
from graddoctor.internal import known_models


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
    # per measured step, the layer's update/weight ratio over the upper-quartile layer's of that step
    # (what the optimizer applied, compared with the rest of the network: GD304's evidence)
    update_relative: deque = field(default_factory=lambda: deque(maxlen=32))


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
    # the step (counted in this optimizer's steps) from which the rate has stayed at or below 1e-3 of its
    # largest so far, and the rate then: a schedule that decayed to ~0 (GD306's cause); None while it is not
    lr_low_from: int | None = None
    lr_low_value: float = 0.0

    def on_every_measured_step(self, count: int) -> bool:
        """Whether `count` steps (with no gradient, with zero gradients...) are every step whose
        gradients were measured, and there was at least one."""
        return count > 0 and count + self.unmeasured_steps == self.steps


class LayerRecord:
    """The series of one run, and what the rules consult besides them.

    `deep` (deep mode) is asked for what it saw (the op that made a NaN, ops that zero a
    gradient) and `loop` (the loop audit) for the evidence that explains a stalled loss;
    either may be absent. `session` is set when the observer starts.
    """

    def __init__(self, options: NumericsOptions, deep: DeepRecording | None, loop: LoopEvidence | None) -> None:
        self.options = options
        self.deep = deep
        self.loop = loop
        self.session = None
        self.layers: dict[int, LayerTrack] = {}  # by layer key (see Layout.layer_keys)
        self.history: deque = deque(maxlen=options.history)  # (step, [(layer key, norm)])
        self.provisional: dict[int, str] = {}  # names as known when the layer was first seen
        self.optimizers: dict[int, OptimizerTrack] = {}
        # optimizer id -> the layout of its parameters (the name is what GD306's judge reads)
        self._layouts: dict[int, Layout] = {}
        self.retired = 0  # optimizers freed during the run (their tracks are kept under -1, -2...)
        # loss series per backward line and optimizer (GD306), per optimizer step
        self.loss_series = LossSeriesBook()
        self.first_bad_loss: tuple[int, Location, float] | None = None
        self.first_bad_grad: tuple[int, Location, list[str], list[str]] | None = None
        self.norms_first: list[float] = []
        self.worst: tuple[float, int, list[str]] | None = None  # total norm, step, top layers (after step 5)
        self.worst_absolute = 0.0
        self.worst_first: tuple[float, int, list[str]] | None = None
        self.measured = 0  # steps whose update/weight ratio was measured
        self.escalated = False  # deep mode was asked to record a step, after a symptom
        self.last_backward: Location = NOWHERE
        self.loss_lines: dict[tuple, Location] = {}  # backward line -> the line that made its loss (deep mode)

    def layouts(self) -> list[Layout]:
        return list(self._layouts.values())

    def retire(self, key: int) -> None:
        """An optimizer that was freed: its track is kept under a key of its own (its id may be
        the next optimizer's), and the layers no live optimizer holds leave the per-layer
        statistics (their ids, too, may be reused)."""
        self.retired += 1
        track = self.optimizers.pop(key, None)
        if track is not None:
            self.optimizers[-self.retired] = track
            self.loss_series.retire(key, -self.retired)
        layout = self._layouts.pop(key, None)
        if layout is not None:
            live = {k for other in self._layouts.values() for k in other.layer_keys}
            for layer in set(layout.layer_keys) - live:
                self.layers.pop(layer, None)
                self.provisional.pop(layer, None)

    def loss_line(self, backward: Location) -> Location | None:
        """The line that computed the loss passed to backward() at `backward`, when deep mode saw it."""
        return self.loss_lines.get((backward.file, backward.line))

    def models(self) -> dict:
        """The session's models, or none when they cannot be read (names then stay provisional)."""
        return known_models(self.session)

    def names(self) -> dict[int, str]:
        """Layer key -> the layer's name as the models are named now."""
        out = dict(self.provisional)
        for key, name, _, _ in layer_names_now(self.models()):
            out[key] = name
        return out

    def layer_name(self, key: int) -> str:
        return self.names().get(key, str(key))
