"""The numerics' judge (numerics/judging.py) on hand-made readings: what it writes into the record."""

from __future__ import annotations

import math

from torch import nn

from graddoctor.graph.naming import ModelIndex
from graddoctor.numerics.judging import Judge, per_layer
from graddoctor.numerics.layout import Layout
from graddoctor.numerics.meter import Reading
from graddoctor.numerics.options import NumericsOptions
from graddoctor.numerics.record import LayerRecord, LayerTrack, OptimizerTrack


class _Values:
    """A readout already on the host."""

    def __init__(self, values: list[float]) -> None:
        self._values = values

    def ready(self) -> bool:
        return True

    def values(self) -> list[float]:
        return self._values


def _record_with(model: nn.Module) -> tuple[LayerRecord, Layout]:
    record = LayerRecord(NumericsOptions(), None, None)
    layout = Layout(list(model.parameters()), ModelIndex({"model": model}))
    record._layouts[1] = layout
    record.optimizers[1] = OptimizerTrack(steps=1)
    for key in layout.layer_keys:
        record.layers.setdefault(key, LayerTrack())
    return record, layout


def test_per_layer_sums_the_squares_of_each_layers_measured_norms():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    layout = Layout(list(model.parameters()), ModelIndex({"model": model}))
    assert per_layer(layout, [0, 1, 3], [3.0, 4.0, 2.0]) == [25.0, 4.0]
    assert per_layer(layout, [2], [1.0]) == [None, 1.0]  # no parameter of the first layer measured


def test_a_step_fills_the_layers_norms_and_the_first_norms():
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4))
    record, layout = _record_with(model)
    norms = [1.0] * len(layout.params)
    reading = Reading(1, 1, layout, list(range(len(norms))), _Values(norms), [], 0)
    Judge(record).judge(reading, last=True)
    tracks = [record.layers[key] for key in layout.layer_keys]
    assert all(t.has_grad and math.isclose(t.last, math.sqrt(2.0)) for t in tracks)  # weight and bias: 1 each
    assert record.norms_first == [math.sqrt(2.0 * len(tracks))]
    assert record.history[-1][0] == 1


def test_a_non_finite_gradient_is_recorded_once_with_its_layer():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    record, layout = _record_with(model)

    class Session:
        def consult(self, dependency, ask, default):
            return default

    record.session = Session()
    norms = [1.0, 1.0, float("nan"), 1.0]
    Judge(record).judge(Reading(3, 1, layout, [0, 1, 2, 3], _Values(norms), [], 0), last=True)
    step, _, layers, params = record.first_bad_grad
    assert step == 3 and record.escalated
    assert record.layers[layout.layer_keys[1]].nonfinite_since == 3
    assert record.layers[layout.layer_keys[0]].nonfinite_since is None
    assert len(params) == 2  # the weight and bias of that layer
