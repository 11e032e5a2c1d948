"""GD507: batches whose every classification target equals `ignore_index`.

Listens to the loss calls (lossdata/patches.py) of `cross_entropy` and `nll_loss` (the
loss modules call them) made with a graph, with integer targets. A checked call counts
the targets that are not `ignore_index`: one comparison and one sum over the target (a
few thousand integers), read back a call later without blocking on an accelerator. The
first `FIRST` calls of each loss line are checked, then one in `EVERY`. Nothing here
changes what the loss returns; a failure turns this judge off and is recorded as
graddoctor's own error.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from graddoctor.finding import Finding, Severity
from graddoctor.internal import record_internal_error
from graddoctor.locate import Location, user_location
from graddoctor.lossdata import patches
from graddoctor.numerics.readout import Readout
from graddoctor.rules import make
from graddoctor.session.observer import Observer

FIRST = 100
EVERY = 10
_INDEX_LOSSES = {"cross_entropy": 4, "nll_loss": 4}  # the position of ignore_index in the signature
_REDUCTION_AT = {"cross_entropy": 6, "nll_loss": 6}
_MAX_PENDING = 64


@dataclass
class _Line:
    where: Location
    ignore_index: int
    reduction: str
    calls: int = 0
    checked: int = 0
    all_ignored: int = 0
    first_step: int | None = None  # the step of the first batch found with every target ignored


class AllTargetsIgnored(Observer):
    name = "ignored_targets"
    codes = frozenset({"GD507"})

    def __init__(self, first: int = FIRST, every: int = EVERY) -> None:
        self.first, self.every = first, every
        self.lines: dict[tuple, _Line] = {}
        self._pending: list[tuple[Readout, _Line, int]] = []
        self._off = False

    def start(self, session) -> None:
        super().start(session)
        patches.listen(self)

    def stop(self) -> None:
        patches.unlisten(self)
        try:
            self._drain(wait=True)
        except Exception:
            self._failed()

    @patches.ignored
    def on_loss_result(self, result, frame) -> None:
        """The targets tell everything; the loss value adds nothing."""

    def on_loss(self, name: str, args: tuple, kwargs: dict, frame) -> None:
        if self._off or name not in _INDEX_LOSSES:
            return
        try:
            self._on_loss(name, args, kwargs, frame)
        except Exception:
            self._failed()

    def _on_loss(self, name: str, args: tuple, kwargs: dict, frame) -> None:
        if self._pending:
            self._drain()
        x = args[0] if args else kwargs.get("input")
        target = args[1] if len(args) > 1 else kwargs.get("target")
        if type(x) is not torch.Tensor or not x.requires_grad or type(target) is not torch.Tensor:
            return  # evaluation, or a tensor subclass we do not read
        if target.is_floating_point() or target.numel() == 0 or target.device.type == "meta":
            return  # class probabilities: no index is ignored
        if torch.compiler.is_compiling():
            return
        at = _INDEX_LOSSES[name]
        ignore = kwargs.get("ignore_index", args[at] if len(args) > at else -100)
        reduction = kwargs.get("reduction", args[_REDUCTION_AT[name]] if len(args) > _REDUCTION_AT[name] else "mean")
        key = (frame.f_code, frame.f_lineno, int(ignore))  # the caller's line: the user's is looked up once
        line = self.lines.get(key)
        if line is None:
            line = self.lines[key] = _Line(user_location(frame), int(ignore), str(reduction))
        line.calls += 1
        if line.calls > self.first and line.calls % self.every:
            return
        kept = (target.detach() != ignore).sum().reshape(1)
        step = self.session.step if getattr(self, "session", None) is not None else 1
        self._pending.append((Readout(kept), line, step))
        if len(self._pending) > _MAX_PENDING:
            self._drain(wait=True)

    def _drain(self, wait: bool = False) -> None:
        while self._pending and (wait or self._pending[0][0].ready()):
            readout, line, step = self._pending.pop(0)
            line.checked += 1
            if readout.values()[0] == 0:
                line.all_ignored += 1
                if line.first_step is None:
                    line.first_step = step

    def findings(self) -> list[Finding]:
        if not self._off:
            try:
                self._drain(wait=True)
            except Exception:
                self._failed()
        return [_finding(line) for line in self.lines.values() if line.all_ignored]

    def _failed(self) -> None:
        self._off = True
        self._pending = []
        session = getattr(self, "session", None)
        if session is not None:
            record_internal_error(session, type(self).__name__)


def _finding(line: _Line) -> Finding:
    every = line.all_ignored == line.checked and line.checked >= 2
    severity = Severity.ERROR if every else Severity.WARNING if line.all_ignored >= 2 else Severity.INFO
    value = "NaN (0 divided by 0)" if line.reduction == "mean" else "0"
    batches = f"{line.all_ignored} of {line.checked} checked batches" if not every else \
        f"all {line.checked} checked batches"
    outcome = ("nothing in this run can learn from this loss: every gradient it gives is 0" if every else
               "those steps learn nothing from it")
    message = (f"In {batches}, every target given to this loss equals ignore_index={line.ignore_index}: "
               f"the loss of such a batch is {value} and its gradients are exactly 0, so {outcome}.")
    evidence = {"batches_checked": line.checked, "batches_all_ignored": line.all_ignored,
                "fraction_all_ignored": round(line.all_ignored / line.checked, 4),
                "ignore_index": line.ignore_index, "reduction": line.reduction, "first_step": line.first_step}
    return make("GD507", message, severity=severity, step=line.first_step, evidence=evidence, **line.where.shown())
