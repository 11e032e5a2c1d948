"""GD308: low-precision parameters whose updates round back to the same value.

On sampled steps of each optimizer (the first `FIRST`, then one in `EVERY`), before the
step: for each bfloat16/float16 parameter with a gradient, its first `PER_PARAMETER`
elements are copied with a mask of the nonzero gradient elements among them; after the
step, the copy is compared with the parameter. The two counts (nonzero-gradient elements,
and those among them left bit for bit unchanged) are read back a step later without
blocking on an accelerator. float32 parameters are never copied: a run without
low-precision parameters pays one dtype test per parameter on sampled steps only.
An optimizer whose state holds a float32 tensor the size of a parameter keeps master
weights: its small updates accumulate there, and it is never judged.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import torch

from graddoctor.finding import Finding
from graddoctor.graph.phrases import related_at
from graddoctor.locate import Location
from graddoctor.numerics.readout import Readout
from graddoctor.rules import make
from graddoctor.session.manual_steps import ManualUpdates
from graddoctor.session.observer import Observer, StepEvent
from graddoctor.session.rhythm import sampled_wake

FIRST = 3
EVERY = 10
PER_PARAMETER = 1 << 16
LOW = (torch.bfloat16, torch.float16)
_MIN_STEPS = 3
_MOSTLY = 0.5


@dataclass
class _Optimizer:
    label: str
    steps: int = 0
    where: Location | None = None
    created: Location | None = None
    dtypes: set = field(default_factory=set)
    lr: float | None = None
    master: bool | None = None  # None: not looked at yet
    taken: list = field(default_factory=list)  # (param, copy, mask) of the step under way
    readouts: list = field(default_factory=list)
    fractions: list = field(default_factory=list)  # per measured step: unchanged / nonzero-gradient
    nonzero: int = 0
    unchanged: int = 0


class LowPrecisionUpdatesLost(Observer):
    name = "low_precision_updates"
    codes = frozenset({"GD308"})

    def __init__(self, first: int = FIRST, every: int = EVERY) -> None:
        self.first, self.every = first, every
        self.optimizers: dict[int, tuple[weakref.ref, _Optimizer]] = {}  # weakly: a freed one's id may be reused

    def _state(self, optimizer: torch.optim.Optimizer) -> _Optimizer:
        entry = self.optimizers.get(id(optimizer))
        if entry is None or entry[0]() is not optimizer:
            label, created = type(optimizer).__name__, None
            for record in self.session.optimizers():
                if record.optimizer is optimizer:
                    label, created = record.label, record.created_at
            entry = self.optimizers[id(optimizer)] = (weakref.ref(optimizer), _Optimizer(label, created=created))
        return entry[1]

    def before_step(self, event: StepEvent) -> None:
        optimizer = event.optimizer
        if isinstance(optimizer, ManualUpdates):
            return
        st = self._state(optimizer)
        st.steps += 1
        st.taken = []
        if st.master or (st.steps > self.first and st.steps % self.every):
            return
        for group in optimizer.param_groups:
            for p in group["params"]:
                if (p.dtype in LOW and p.grad is not None and p.grad.layout == torch.strided
                        and p.device.type != "meta"):
                    flat = p.detach().reshape(-1)[:PER_PARAMETER]
                    mask = p.grad.detach().reshape(-1)[:PER_PARAMETER] != 0
                    st.taken.append((p, flat.clone(), mask))
                    st.dtypes.add(str(p.dtype).replace("torch.", ""))
                    if st.lr is None and isinstance(group.get("lr"), (int, float)):
                        st.lr = float(group["lr"])
        if st.taken:
            st.where = st.where or event.where

    def wake_in(self, rhythm) -> int | None:
        """It measures the first steps of each optimizer and then one in `every`: it sees the repeated
        iterations that hold such a step and counts the others' steps in `resync`."""
        wake = None
        for key, per in rhythm.steps.items():
            entry = self.optimizers.get(key)
            if entry is None or entry[0]() is None:
                return 0
            st = entry[1]
            if st.master:
                continue  # master weights: never measured again
            j = sampled_wake(st.steps, per, self.first, self.every)
            if j is not None:
                wake = j if wake is None else min(wake, j)
        return wake

    def resync(self, skipped: int, prefix: tuple, rhythm) -> None:
        for key, per in rhythm.steps.items():
            entry = self.optimizers.get(key)
            if entry is not None:
                entry[1].steps += skipped * per + sum(1 for k in prefix if k[0] == "step" and k[1] == key)

    def after_step(self, event: StepEvent) -> None:
        entry = self.optimizers.get(id(event.optimizer))
        if entry is None or entry[0]() is not event.optimizer or not entry[1].taken:
            return
        st = entry[1]
        if st.master is None:
            st.master = _keeps_master_weights(event.optimizer, [p for p, _, _ in st.taken])
        nonzero = torch.zeros((), dtype=torch.int64, device=st.taken[0][2].device)
        unchanged = torch.zeros_like(nonzero)
        for p, before, mask in st.taken:
            now = p.detach().reshape(-1)[:PER_PARAMETER]
            nonzero = nonzero + mask.sum().to(nonzero.device)
            unchanged = unchanged + (mask & (now == before)).sum().to(nonzero.device)
        st.taken = []
        st.readouts.append(Readout(torch.stack([nonzero, unchanged])))
        _drain(st, wait=False)

    def findings(self) -> list[Finding]:
        out = []
        for _, st in self.optimizers.values():
            _drain(st, wait=True)
            if st.master or len(st.fractions) < _MIN_STEPS or st.nonzero == 0:
                continue
            stuck = sum(1 for f in st.fractions if f >= _MOSTLY)
            if 2 * stuck > len(st.fractions):
                out.append(_finding(st))
        return out


def _drain(st: _Optimizer, wait: bool) -> None:
    while st.readouts and (wait or st.readouts[0].ready()):
        nonzero, unchanged = (int(v) for v in st.readouts.pop(0).values())
        if nonzero:
            st.fractions.append(unchanged / nonzero)
            st.nonzero += nonzero
            st.unchanged += unchanged


def _keeps_master_weights(optimizer: torch.optim.Optimizer, params: list) -> bool:
    """Whether the optimizer's state holds a float32 tensor as large as a parameter (a master copy)."""
    for p in params:
        for value in optimizer.state.get(p, {}).values():
            if isinstance(value, torch.Tensor) and value.dtype == torch.float32 and value.numel() == p.numel():
                return True
    return False


def _finding(st: _Optimizer) -> Finding:
    fraction = st.unchanged / st.nonzero
    dtype = " and ".join(sorted(st.dtypes))
    lr = f"lr={st.lr:g}" if st.lr is not None else "its learning rate"
    message = (f"{st.label} left {fraction:.0%} of the {dtype} parameter elements that had a nonzero gradient "
               f"exactly unchanged ({st.unchanged:,} of {st.nonzero:,} over {len(st.fractions)} measured steps): "
               f"with {lr}, most updates are smaller than {dtype}'s resolution at the weights' size and round away, "
               "so these weights do not learn.")
    evidence = {"fraction_unchanged": round(fraction, 4), "dtype": dtype, "lr": st.lr,
                "measured_steps": len(st.fractions), "elements_with_gradient": st.nonzero,
                "elements_unchanged": st.unchanged, "master_weights": False}
    related = related_at(st.created, "the optimizer, built over low-precision parameters") if st.created else []
    return make("GD308", message, evidence=evidence, related=related, **st.where.shown())
