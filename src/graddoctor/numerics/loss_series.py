"""Loss series for GD306: one per backward site and the optimizer it drives.

A training script can hold several losses that are not meant to fall together:
a GAN's discriminator and generator losses, an actor's and a critic's, a teacher
trained first and a student after it with a new optimizer. Each `backward()`
line paired with the optimizer stepped after it is one series (a phase), judged
on its own against its own step-to-step noise.

What is kept per series is bounded: the first and last `WINDOW` per-step values
(means of the step's micro-batches at that line), read back with the numerics
readout that already happens once per step (no extra host synchronisation).
The loss graph is walked once per series, at its first step, to know which
parameters it reaches (an adversarial pair), whether it is built from
log-probabilities weighted by a constant (a policy-gradient loss), and, for each
layer, the nearest layer between it and the loss (GD304 tells attenuation along
depth from a loss term that is small on purpose).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

from graddoctor.locate import Location
from graddoctor.numerics.batch_size import typical

WINDOW = 64
_WALK_LIMIT = 5000  # nodes walked per series: enough for any loss head, bounded for huge graphs
_LOG_DEPTH = 8  # how far below a product with a constant a log-likelihood op is looked for
_LOG_OPS = ("LogBackward", "LogSoftmaxBackward", "LogsumexpBackward", "Log1pBackward", "XlogyBackward")


@dataclass
class GraphSummary:
    reaches: frozenset = frozenset()  # ids of the leaves whose .grad the loss fills
    policy: bool = False  # log-probabilities times a constant weight (REINFORCE, actor loss)
    # layer key -> key of the nearest other layer on its shortest path to the loss (None: none, the
    # layer is the first on its path); layers the walk did not reach are absent
    above: dict = field(default_factory=dict)


@dataclass
class Series:
    where: Location  # the backward() line
    optimizer: int  # id of the optimizer stepped after it
    graph: GraphSummary
    first: list = field(default_factory=list)
    last: deque = field(default_factory=lambda: deque(maxlen=WINDOW))
    count: int = 0  # optimizer steps with a finite loss from this line
    # the batch size of each value in `first` and `last` (None: not known), to compare like with like
    first_sizes: list = field(default_factory=list)
    last_sizes: deque = field(default_factory=lambda: deque(maxlen=WINDOW))
    first_step: int = 0  # session step numbers, to tell phases from concurrent losses
    last_step: int = 0

    def add(self, value: float, step: int, size: int | None = None) -> None:
        if self.count == 0:
            self.first_step = step
        self.count += 1
        self.last_step = step
        if len(self.first) < WINDOW:
            self.first.append(value)
            self.first_sizes.append(size)
        self.last.append(value)
        self.last_sizes.append(size)


@dataclass
class Trend:
    first: float  # median of the first window
    last: float  # median of the last window
    noise: float  # step-to-step noise (robust standard deviation)
    z: float  # (last - first) over the standard error of that difference
    window: int


class LossSeriesBook:
    """Every loss series of a run, fed from LayerStats' hot path with dictionary work only."""

    def __init__(self) -> None:
        self.series: dict[tuple, Series] = {}
        self.params: dict[int, frozenset] = {}  # optimizer id -> ids of its parameters
        self._roots: dict[tuple, object] = {}  # backward site -> the last loss node since the last step
        self._graphs: dict[tuple, GraphSummary] = {}

    def on_backward(self, where: Location, node) -> None:
        if node is not None:
            self._roots[(where.file, where.line)] = node

    def on_step(self, optimizer: int, params: list, layer_of: Mapping[int, int] | None = None) -> None:
        """`layer_of`: parameter id -> its layer's key, to know which layer sits above which."""
        if optimizer not in self.params:
            self.params[optimizer] = frozenset(id(p) for p in params)
        if self._roots:
            for site, node in self._roots.items():
                key = site + (optimizer,)
                if key not in self._graphs:
                    self._graphs[key] = summarize(node, layer_of or {})
            self._roots.clear()  # the graph nodes are not kept past the step

    def retire(self, optimizer: int, key: int) -> None:
        """A freed optimizer's series move to `key`: an optimizer built later with the same id
        starts series of its own."""
        self.params.pop(optimizer, None)
        for table in (self.series, self._graphs):
            for old in [k for k in table if k[-1] == optimizer]:
                value = table.pop(old)
                table[old[:-1] + (key,)] = value
                if isinstance(value, Series):
                    value.optimizer = key

    def add_reading(self, optimizer: int, losses: list, values: list[float]) -> None:
        """One optimizer step's losses [(where, step, batch size)] and their values: one point per backward line."""
        # One point per line and step: the losses of steps whose gradients were not measured
        # arrive with the next measured step's, and keep their own steps. Micro-batches of one
        # step add up to its batch.
        sums: dict[tuple, list] = {}
        for value, (where, step, size) in zip(values, losses):
            if math.isfinite(value):
                entry = sums.setdefault((where.file, where.line, step), [where, step, 0.0, 0, 0])
                entry[2], entry[3] = entry[2] + value, entry[3] + 1
                entry[4] = None if size is None or entry[4] is None else entry[4] + size
        for (file, line, _), (where, step, total, n, size) in sums.items():
            key = (file, line, optimizer)
            series = self.series.get(key)
            if series is None:
                series = self.series[key] = Series(where, optimizer, self._graphs.get(key, GraphSummary()))
            series.add(total / n, step, size)

    def adversarial(self, series: Series) -> bool:
        """Another optimizer, trained at the same time, holds parameters this loss reaches, or the reverse.

        A GAN's generator loss runs through the discriminator, whose optimizer pushes the other
        way; the pair's losses are not meant to fall together.
        """
        mine = self.params.get(series.optimizer, frozenset())
        for other in self.series.values():
            if other.optimizer == series.optimizer or not _overlap(series, other):
                continue
            theirs = self.params.get(other.optimizer, frozenset())
            if (series.graph.reaches & (theirs - mine)) or (other.graph.reaches & (mine - theirs)):
                return True
        return False


def _overlap(a: Series, b: Series) -> bool:
    return a.first_step <= b.last_step and b.first_step <= a.last_step


def trend(series: Series, min_window: int = 4) -> Trend | None:
    """Medians of the first and last quarter (at most WINDOW values each), scaled by the step-to-step noise.

    Where most steps had one batch size and some another (an epoch's short last batch), only the
    steps of that size are compared."""
    k = min(series.count // 4, WINDOW)
    if k < min_window:
        return None
    first, last = equal_batches(series.first[:k], series.first_sizes[:k], list(series.last)[-k:],
                                list(series.last_sizes)[-k:], min_window)
    k = len(first)
    diffs = [abs(b - a) for w in (first, last) for a, b in zip(w, w[1:])]
    # for independent noise of deviation s, |x[i+1] - x[i]| has median 0.954 s; a trend
    # inside a window barely moves consecutive differences, unlike a window's spread
    noise = _median(diffs) / 0.954
    m1, m2 = _median(first), _median(last)
    se = 1.2533 * noise * math.sqrt(2.0 / k)  # standard error of a difference of two medians
    z = (m2 - m1) / se if se > 0 else (0.0 if m1 == m2 else math.copysign(math.inf, m2 - m1))
    return Trend(m1, m2, noise, z, k)


def equal_batches(first: list, first_sizes: list, last: list, last_sizes: list, min_window: int = 4) -> tuple[list, list]:
    """The two windows, each cut to the steps of the batch size most steps had (the same number of
    values in both); as they are when there is no such size, or too few steps of it."""
    size = typical(list(first_sizes) + list(last_sizes)) if len(first_sizes) == len(first) and len(last_sizes) == len(last) else None
    if size is None:
        return first, last
    a = [v for v, s in zip(first, first_sizes) if s == size]
    b = [v for v, s in zip(last, last_sizes) if s == size]
    k = min(len(a), len(b))
    return (a[:k], b[-k:]) if k >= min_window else (first, last)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return 0.0
    return ordered[n // 2] if n % 2 else 0.5 * (ordered[n // 2 - 1] + ordered[n // 2])


def summarize(root, layer_of: Mapping[int, int] | None = None) -> GraphSummary:
    """The leaves a loss graph reaches, whether it weights log-probabilities by a constant, and which
    layer lies above which (`layer_of`: parameter id -> layer key).

    Breadth-first from the loss, so a layer reached along several paths gets the layer above it
    on the shortest one. Each node carries the nearest layer above it; a node whose own inputs
    include a layer's parameters (a Linear's addmm, a convolution) hands that layer down instead.
    """
    layer_of = layer_of or {}
    reaches, products, above = set(), [], {}
    seen, queue, carried = {root}, deque([root]), {root: None}
    while queue and len(seen) <= _WALK_LIMIT:
        node = queue.popleft()
        variable = getattr(node, "variable", None)
        here = carried.pop(node, None)
        if variable is not None:
            reaches.add(id(variable))
            layer = layer_of.get(id(variable))
            if layer is not None and layer != here:
                above.setdefault(layer, here)
            continue
        children = [c for c, _ in node.next_functions]
        if type(node).__name__ == "MulBackward0" and len(children) == 2 and (children[0] is None) != (children[1] is None):
            products.append(children[0] or children[1])  # x * w with w a constant (a return, an advantage)
        own = _own_layer(children, layer_of)
        if own is not None and own != here:
            above.setdefault(own, here)
        for child in children:
            if child is not None and child not in seen:
                seen.add(child)
                carried[child] = own if own is not None else here
                queue.append(child)
    return GraphSummary(frozenset(reaches), any(_log_likelihood(node) for node in products), above)


def _own_layer(children: list, layer_of: Mapping[int, int]) -> int | None:
    """The layer whose parameters are direct inputs of a node (through at most one transpose, view or cast)."""
    if not layer_of:
        return None
    for child in children:
        for _ in range(2):
            if child is None:
                break
            variable = getattr(child, "variable", None)
            if variable is not None:
                layer = layer_of.get(id(variable))
                if layer is not None:
                    return layer
                break
            nexts = child.next_functions
            child = nexts[0][0] if len(nexts) == 1 else None
    return None


def _log_likelihood(start) -> bool:
    """A log-probability near `start`: a log/log-softmax op, or a negated square (a Gaussian log-density)."""
    level, seen, negated = [start], {start}, False
    for _ in range(_LOG_DEPTH):
        below = []
        for node in level:
            name = type(node).__name__
            if name.startswith(_LOG_OPS):
                return True
            negated = negated or name == "NegBackward0"
            if negated and name.startswith("PowBackward"):
                return True
            for child, _ in node.next_functions:
                if child is not None and child not in seen:
                    seen.add(child)
                    below.append(child)
        level = below
    return False
