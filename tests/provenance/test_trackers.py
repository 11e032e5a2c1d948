"""Deep mode's trackers and op kinds (provenance/trackers/, op_kinds.py, taint.py), on their own."""

from __future__ import annotations

import gc

import torch

from graddoctor.provenance import op_kinds
from graddoctor.provenance.records import NUMBER, Cut
from graddoctor.provenance.taint import TaintTable
from graddoctor.provenance.trackers.cuts import CutTracker
from graddoctor.provenance.trackers.grad_mode import GradModeTracker
from graddoctor.provenance.trackers.round_trips import RoundTrips


def test_ops_are_classified_by_what_they_do_to_the_graph():
    assert op_kinds.classify(torch.Tensor.detach) is op_kinds.DETACH
    assert op_kinds.classify(torch.Tensor.item) is op_kinds.NUMBER
    assert op_kinds.classify(torch.Tensor.add_) is op_kinds.INPLACE
    assert op_kinds.classify(torch.Tensor.requires_grad_) is op_kinds.REQUIRES_GRAD
    assert op_kinds.classify(torch.tensor) is op_kinds.FACTORY
    assert op_kinds.classify(torch.zeros_like) is op_kinds.SHAPE_ONLY
    assert op_kinds.classify(torch.round) is op_kinds.STEP_FN
    assert op_kinds.classify(torch.relu) is op_kinds.BOUNDED
    assert op_kinds.classify(torch.matmul) is op_kinds.PLAIN


def test_the_taint_table_keeps_no_tensor_alive():
    table = TaintTable()
    t = torch.zeros(3)
    table.set(t, frozenset({0}))
    assert table.get(t) == frozenset({0})
    key = id(t)
    del t
    gc.collect()
    assert table.table[key][0]() is None  # held weakly: freed with the user's last reference


def _round_trips() -> tuple[RoundTrips, list[Cut]]:
    cuts: list[Cut] = [Cut(id=0, kind=NUMBER, op="item", location=None, chain=[])]
    return RoundTrips(CutTracker(cuts, GradModeTracker()), TaintTable()), cuts


def test_a_float_equal_to_the_mean_of_recorded_floats_carries_their_cuts():
    trips, _ = _round_trips()
    for value in (0.25, 0.5, 0.125):
        trips.note(value, frozenset({0}))
    mean = (0.25 + 0.5 + 0.125) / 3
    assert trips.summed_taint(mean, torch.tensor(mean), "tensor", None) == frozenset({0})
    assert trips.summed_taint(2.0, torch.tensor(2.0), "tensor", None) is None  # round numbers match by accident


def test_small_ints_are_not_recorded_by_identity():
    trips, _ = _round_trips()
    trips.note(3, frozenset({0}))  # CPython shares the object: every 3 would look rebuilt
    assert trips.number_taint(3) is None
    big = 10**6 + 1
    trips.note(big, frozenset({0}))
    assert trips.number_taint(big) == frozenset({0})


def test_a_list_rebuilt_by_length_is_traced_and_the_cut_told_where():
    import sys

    trips, cuts = _round_trips()
    values = [0.5, 1.5]
    trips.note(values, frozenset({0}))
    copy = [v * 2 for v in values]  # a new list of the same length: matched by its shape
    assert trips.rebuilt_from(copy, torch.tensor(copy), "tensor", sys._getframe()) == frozenset({0})
    assert cuts[0].rebuilt is not None and cuts[0].rebuilt[1] == "torch.tensor(...)"


def test_an_integer_tensor_is_never_rebuilt_from_cut_values():
    # a char-RNN's dataset line, `torch.tensor([...], dtype=torch.long)`, the length of a list of cut values
    import sys

    trips, cuts = _round_trips()
    trips.note([0.5, 1.5, 2.5], frozenset({0}))
    indices = [3, 1, 4]
    assert trips.rebuilt_from(indices, torch.tensor(indices, dtype=torch.long), "tensor", sys._getframe()) is None
    assert cuts[0].rebuilt is None
    assert trips.rebuilt_from(indices, torch.tensor(indices, dtype=torch.float), "tensor", sys._getframe())
