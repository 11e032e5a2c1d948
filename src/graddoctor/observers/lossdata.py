"""The loss-and-data observer: GD501-GD505 from the loss functions' inputs and the module tree.

Cost, by design (measured in benchmarks/bench_watch.py, "GD50x alone"): every call of a
`torch.nn.functional` loss goes through one Python wrapper; the first
`FIRST` calls of each loss function, then one in `EVERY`, and past 200 calls one in
5 x `EVERY`, are checked. A
check reads shapes and graph nodes (no tensor data) and computes a handful of
reductions of the loss's input (its first rows, up to 1M values) and target, stacked into one tensor and read
back once (without blocking on an accelerator: the values are judged at a
later call). The module tree is read once per model. Nothing here changes
what the loss returns, and a failure inside a check turns the observer off
and is recorded as graddoctor's own error, never raised into the user's step.
"""

from __future__ import annotations

import torch

from graddoctor.finding import Finding
from graddoctor.graph.readable import has_values
from graddoctor.internal import record_internal_error
from graddoctor.locate import user_location
from graddoctor.lossdata import patches
from graddoctor.rules.data.gd503_broadcast_in_loss.judge import Broadcast
from graddoctor.lossdata.calls import LossCall, origin
from graddoctor.rules.data.gd505_constant_output.judge import ConstantOutput
from graddoctor.rules.data.gd502_shared_module_copies.judge import SharedCopies
from graddoctor.rules.data.gd501_probabilities_into_logits_loss.judge import Probabilities
from graddoctor.rules.data.gd504_class_sorted_batches.judge import SortedBatches
from graddoctor.numerics.readout import Readout
from graddoctor.session.observer import BackwardEvent, Observer, StepEvent

FIRST = 10
EVERY = 10
_SPARSE_AFTER = 200
_GRAPH_WALKS = 3  # the backward calls whose loss graph is read for hand-written broadcasts (shared walks)
_INDEX_LOSSES = frozenset({"cross_entropy", "nll_loss"})
_MAX_PENDING = 64
# A checked call reads at most this many elements of the loss input (its first rows): a
# language model's logits (1024 x 50257) would otherwise cost ~8 passes over 200 MB per
# check, +15% on each checked GPT-2 step on CPU. Rows are samples or tokens: the first
# 20 rows summing to 1, or all equal, are the same evidence as all of them.
_MAX_ELEMENTS = 1 << 20
_is_compiling = torch.compiler.is_compiling


class LossDataObserver(Observer):
    name = "lossdata"
    codes = frozenset({"GD501", "GD502", "GD503", "GD504", "GD505"})

    def __init__(self, first: int = FIRST, every: int = EVERY) -> None:
        self.first, self.every = first, every
        self.calls: dict[str, int] = {}
        self.probabilities = Probabilities()
        self.constant = ConstantOutput()
        self.sorted_batches = SortedBatches()
        self.judges = (self.probabilities, self.constant, self.sorted_batches)
        self.broadcast = Broadcast()
        self.copies = SharedCopies()
        self._pending: list[tuple[Readout, LossCall, list]] = []
        self._off = False

    # --- lifetime -----------------------------------------------------------------------------

    def start(self, session) -> None:
        super().start(session)
        self.constant.session = session
        patches.listen(self)

    def stop(self) -> None:
        patches.unlisten(self)
        try:
            self.constant.stop()
            self._drain(wait=True)
        except Exception:
            self._failed()

    # --- the loss calls (hot path) --------------------------------------------------------------

    def on_loss(self, name: str, args: tuple, kwargs: dict, frame) -> None:
        if self._off:
            return
        try:
            if self.constant._probe is not None:
                self.constant.on_loss_call()
            if self._pending:  # an earlier call's values: read one call later, never in the call that made them
                self._drain()
            count = self.calls.get(name, 0)
            self.calls[name] = count + 1
            # past the first 200 calls a run has shown what its data and loss look like:
            # checked 5x less often from then on (one call in 50 by default)
            every = self.every if count < _SPARSE_AFTER else self.every * 5
            if count >= self.first and count % every:
                return
            if _is_compiling():
                return
            self._check(name, count, args, kwargs, frame)
        except Exception:
            self._failed()

    @patches.ignored
    def on_loss_result(self, result, frame) -> None:
        """The loss's inputs are what these checks read; its result tells them nothing more."""

    def _check(self, name: str, count: int, args: tuple, kwargs: dict, frame) -> None:
        x = args[0] if args else kwargs.get("input")
        target = args[1] if len(args) > 1 else kwargs.get("target")
        if type(x) is not torch.Tensor or not x.requires_grad or x.dim() == 0 or not x.is_floating_point():
            return  # evaluation, a tensor subclass, a scalar: not a training loss we can read safely
        if not has_values(x):
            return
        if not has_values(target):
            target = None
        session = getattr(self, "session", None)
        kind, squashed_at, _ = origin(x)
        call = LossCall(
            name=name, where=user_location(frame), step=session.step if session is not None else 1, index=count,
            input_shape=tuple(x.shape), target_shape=tuple(target.shape) if target is not None else None,
            target_is_index=(target is not None and name in _INDEX_LOSSES and not target.is_floating_point()
                             and target.dim() == 1 and x.dim() == 2),
            squashed_by=kind, squashed_at=squashed_at,
        )
        self.broadcast.check_call(call)
        judges = [j for j in self.judges if j.wants(call)]
        if not judges:
            return
        parts: list = []
        sizes = []
        seen = _head(x)
        for judge in judges:
            values = judge.measure(call, seen, target)
            parts.extend(values)
            sizes.append(len(values))
        stacked = torch.stack([p.detach().float() for p in parts])
        self._pending.append((Readout(stacked), call, list(zip(judges, sizes))))
        if len(self._pending) > _MAX_PENDING:
            self._drain(wait=True)

    def _drain(self, wait: bool = False) -> None:
        while self._pending and (wait or self._pending[0][0].ready()):
            readout, call, judges = self._pending.pop(0)
            values = readout.values()
            at = 0
            for judge, size in judges:
                judge.take(call, values[at:at + size])
                at += size

    # --- the module tree and the loss graph ------------------------------------------------------

    def before_backward(self, event: BackwardEvent) -> None:
        if self._off:
            return
        if event.index == 0:
            self.copies.check_models(self.session.models(), event.step)
        loss = event.loss
        if event.index < _GRAPH_WALKS and isinstance(loss, torch.Tensor) and loss.grad_fn is not None:
            self.broadcast.check_graph(loss, event.where, event.step)

    def before_step(self, event: StepEvent) -> None:
        if not self._off and event.step == 1:
            self.copies.check_models(self.session.models(), event.step)

    def wake_in(self, rhythm) -> int | None:
        """Its session events act on the first backward passes and the first step only: the loss calls
        (patches.py, not session events) are what it samples, and those it always gets."""
        return None

    def findings(self) -> list[Finding]:
        if not self._off:
            try:
                self._drain(wait=True)
            except Exception:
                self._failed()
        out: list[Finding] = []
        for part in (self.probabilities, self.copies, self.broadcast, self.sorted_batches, self.constant):
            out.extend(part.findings())
        return out

    def _failed(self) -> None:
        self._off = True
        self._pending = []
        session = getattr(self, "session", None)
        if session is not None:
            record_internal_error(session, type(self).__name__)


def _head(x: torch.Tensor) -> torch.Tensor:
    """The first rows of `x` (a view), at most `_MAX_ELEMENTS` elements but at least 2 rows."""
    if x.numel() <= _MAX_ELEMENTS or x.dim() == 0:
        return x
    row = max(1, x.numel() // max(1, x.shape[0]))
    return x[:max(2, _MAX_ELEMENTS // row)]
