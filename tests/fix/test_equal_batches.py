"""Loss windows compare steps of the same batch size: an epoch's short last batch (4 samples where the
others hold 32) is noisier and often larger, and one step's loss depends on its batch."""

from __future__ import annotations

import random
import re

import torch
from torch import nn

from graddoctor import watch
from graddoctor.fix.losses import LineLoss
from graddoctor.fix.objective import objective_changed
from graddoctor.fix.render import _ends
from graddoctor.numerics.batch_size import batch_of


def _series(w):
    stats = next(o for o in w.session.observers if o.name == "layers").record
    (series,) = stats.loss_series.series.values()
    return series


def test_each_step_records_the_batch_its_loss_averaged():
    torch.manual_seed(0)
    x, y = torch.randn(100, 8), torch.randint(0, 3, (100,))
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch() as w:
        for _ in range(3):
            for i in range(0, 100, 32):  # 32, 32, 32, then the 4 rows left
                loss = nn.functional.cross_entropy(model(x[i:i + 32]), y[i:i + 32]) / 2  # scaled: looked through
                opt.zero_grad()
                loss.backward()
                opt.step()
    assert _series(w).first_sizes == [32, 32, 32, 4] * 3


def test_micro_batches_of_one_step_add_up_to_its_batch():
    torch.manual_seed(0)
    x, y = torch.randn(96, 8), torch.randn(96, 1)
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with watch() as w:
        for step in range(4):
            opt.zero_grad()
            for micro in range(3):  # three micro-batches of 8 per optimizer step
                i = (step * 3 + micro) * 8
                (nn.functional.mse_loss(model(x[i:i + 8]), y[i:i + 8]) / 3).backward()
            opt.step()
    assert _series(w).first_sizes == [24] * 4


def test_a_loss_without_a_batch_shaped_input_has_no_size():
    w = torch.randn(5, requires_grad=True)
    assert batch_of((w ** 2).sum().grad_fn) == 5  # the parameter's own size: its leading dimension
    assert batch_of(torch.tensor(2.0, requires_grad=True).exp().grad_fn) is None  # 0-d all the way down


def test_reading_the_size_unpacks_no_saved_tensor():
    # a checkpoint's recomputation or save_on_cpu's copy runs when a saved tensor is unpacked: the
    # size comes from shapes the graph keeps, so none of that runs before the user's backward
    unpacked = []
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 4))
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: unpacked.append(t) or t):
        loss = nn.functional.cross_entropy(model(torch.randn(8, 6)), torch.randint(0, 4, (8,)))
    assert batch_of(loss.grad_fn) == 8
    assert unpacked == []
    loss.backward()
    assert unpacked  # the hooks were live: backward unpacks


def _line(values: list[float], sizes: list[int]) -> LineLoss:
    return LineLoss("train.py", 30, len(values), values[:64], values[-64:], None, sizes[:64], sizes[-64:])


def _epochs(level, n_epochs: int, seed: int) -> tuple[list[float], list[int]]:
    """Two full batches and a short one per epoch (70 rows in batches of 32); the short one holds the
    hard rows: loss 3 to 9."""
    rng = random.Random(seed)
    values, sizes = [], []
    for e in range(n_epochs):
        for b in range(3):
            step = 3 * e + b
            short = b == 2
            values.append(rng.uniform(3, 9) if short else level(step) + rng.gauss(0, 0.01))
            sizes.append(6 if short else 32)
    return values, sizes


def test_a_rising_loss_is_seen_through_the_short_batches_noise():
    before = _line(*_epochs(lambda s: 1.0 - s / 300, 40, 1))  # falls slowly
    after = _line(*_epochs(lambda s: 0.5 + s / 240, 40, 2))  # the edited program's loss climbs 0.5 -> 1
    said = objective_changed([before], [after], {"train.py": {30: 30}}, None, None)
    assert said is not None and said.startswith("the loss of train.py:30 rose"), said


def test_without_short_batches_nothing_is_left_out():
    # the same climb, every batch full: judged on all steps, as before batch sizes were known
    values = [0.5 + s / 160 + random.Random(s).gauss(0, 0.01) for s in range(160)]
    after = _line(values, [32] * 160)
    before = _line([1.0 - s / 400 for s in range(160)], [32] * 160)
    assert objective_changed([before], [after], {"train.py": {30: 30}}, None, None) is not None
    flat = _line([1.0 + random.Random(s).gauss(0, 0.01) for s in range(160)], [32] * 160)
    assert objective_changed([before], [flat], {"train.py": {30: 30}}, None, None) is None


def test_the_summary_compares_full_batches_only():
    values, sizes = _epochs(lambda s: 2.0 - s / 100, 16, 3)  # full batches: 2.0 falling to 1.53
    said = _ends(_line(values, sizes).curve())
    start, end = (float(v) for v in re.match(r"([\d.]+) → ([\d.]+)", said).groups())
    assert abs(start - 1.955) < 0.01 and abs(end - 1.595) < 0.01, said  # no 3-9 loss of a short batch in either
    assert said.endswith("(medians of steps 1-11 and 37-47, batches of 32 only)"), said
