"""Per-layer gradient statistics: what the numerics observer (observers/numerics.py) gives its judges.

The observer only wires the session's events to its parts: the meter (meter.py)
measures on the hot path and queues readings, the judge (judging.py) turns them
into the record (record.py) off it, and at the end the judges read that record.
The layer table is built from the record too (layer_rows.py).
"""

from __future__ import annotations

from graddoctor.numerics.judging import Judge
from graddoctor.numerics.layer_rows import layer_rows
from graddoctor.numerics.meter import Meter
from graddoctor.numerics.options import NumericsOptions
from graddoctor.numerics.record import LayerRecord
from graddoctor.report.layers import LayerRow
from graddoctor.session.observer import BackwardEvent, CallEvent, DeepRecording, LoopEvidence, Observer, StepEvent


class LayerStats(Observer):
    """Gradient norms per layer per step, and what they say about the run.

    `deep` (deep mode) is asked for one deep step after a NaN/Inf, and for what it
    saw (the op that made it, ops that zero a gradient); `loop` (the loop audit)
    for the evidence that explains a stalled loss. Either may be absent.
    """

    name = "layers"

    def __init__(self, options: NumericsOptions | None = None, *, deep: DeepRecording | None = None,
                 loop: LoopEvidence | None = None, **opts) -> None:
        options = options or NumericsOptions.take(opts)
        if opts:
            raise TypeError(f"unknown numerics option(s): {', '.join(sorted(opts))}")
        self.record = LayerRecord(options, deep, loop)
        self.meter = Meter(self.record, Judge(self.record).judge)

    def start(self, session) -> None:
        super().start(session)
        self.record.session = session

    # --- hot path ---------------------------------------------------------------------------

    def before_backward(self, event: BackwardEvent) -> None:
        self.meter.before_backward(event)

    def on_call(self, event: CallEvent) -> None:
        self.meter.on_call(event)

    def before_step(self, event: StepEvent) -> None:
        self.meter.before_step(event)

    def after_step(self, event: StepEvent) -> None:
        self.meter.after_step(event)

    # --- repeated iterations (session/rhythm.py) ---------------------------------------------

    # Every loss is read at its own backward, asleep or not: a NaN is known at the step it appears.
    steady_events = frozenset({"before_backward"})

    def wake_in(self, rhythm) -> int | None:
        return self.meter.wake_in(rhythm)

    def resync(self, skipped: int, prefix: tuple, rhythm) -> None:
        self.meter.resync(skipped, prefix, rhythm)

    # --- results ----------------------------------------------------------------------------

    def stop(self) -> None:
        self.meter.stop()

    def settle(self) -> LayerRecord:
        """Read back every queued measurement: the judges read a complete record."""
        self.meter.finish()
        return self.record

    def layer_rows(self) -> list[LayerRow]:
        return layer_rows(self.record)
