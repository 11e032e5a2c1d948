"""GD205 scheduler-misuse at runtime: a scheduler stepped before the first optimizer step,
or an epoch-based scheduler stepped once per batch.

Fed by the loop audit with every user call of `lr_scheduler.step()` and every
start of a pass over the training data (`iter()` of a DataLoader). An epoch
scheduler stepped a second time within one pass is judged at that call, from
the structure of the loop: it is a misuse when its schedule would change the
learning rate within a single pass (its period, in its own steps, is shorter
than the pass in batches). A schedule sized in iterations (`CosineAnnealingLR`
with `T_max = epochs * len(loader)`, `StepLR(step_size=10_000)`) spans more
than one pass and is stepped per batch on purpose.

Without any DataLoader there is no pass to count in (batches sliced from
tensors, any loop shape): then, at the end of the run, a scheduler that stepped
with every optimizer step is judged by what its schedule did. A decay schedule
that brought the rate down to 1% of its start, or a `CosineAnnealingLR` that
went down to its minimum and back up again (more than 2 * T_max steps: a cosine
sized in iterations ends at its minimum, it never climbs back), was stepped per
batch with an epoch-sized period.
"""

from __future__ import annotations

import math

from torch.optim import lr_scheduler

from graddoctor.finding import Finding
from graddoctor.session.observer import CallEvent

# Schedulers whose step size is counted in epochs by convention.
EPOCH_SCHEDULERS = (lr_scheduler.StepLR, lr_scheduler.MultiStepLR, lr_scheduler.ExponentialLR,
                    lr_scheduler.CosineAnnealingLR, lr_scheduler.ReduceLROnPlateau)
# Judged without passes too (by how far the rate fell): a cosine that reaches its minimum at the
# end of the run is what an iteration-sized cosine does, so it is left out there.
_DECAY_JUDGED = (lr_scheduler.StepLR, lr_scheduler.MultiStepLR, lr_scheduler.ExponentialLR,
                 lr_scheduler.ReduceLROnPlateau)


def schedule_period(sched) -> float | None:
    """How many of its own steps the scheduler takes before the learning rate changes for real
    (falls tenfold for ExponentialLR, reaches its minimum for cosine); None when unknown."""
    if isinstance(sched, lr_scheduler.StepLR):
        return float(sched.step_size)
    if isinstance(sched, lr_scheduler.MultiStepLR):
        return float(min(sched.milestones)) if sched.milestones else None
    if isinstance(sched, lr_scheduler.CosineAnnealingLR):
        return float(sched.T_max)
    if isinstance(sched, lr_scheduler.ExponentialLR):
        gamma = float(sched.gamma)
        return math.log(0.1) / math.log(gamma) if 0.0 < gamma < 1.0 else None
    if isinstance(sched, lr_scheduler.ReduceLROnPlateau):
        return float(sched.patience + 1)
    return None


class SchedulerSteps:
    """What is known of each scheduler the user stepped, and of the current pass over the data."""

    def __init__(self, epoch_scheduler_decay: float = 0.01) -> None:
        self.epoch_scheduler_decay = epoch_scheduler_decay
        self._schedulers: dict[int, dict] = {}
        self.passes = 0  # DataLoader passes begun
        self.pass_length: int | None = None  # batches in the current pass, when the loader knows

    def new_pass(self, loader) -> None:
        """`iter(loader)`: a pass over the data begins (an epoch, or an evaluation)."""
        self.passes += 1
        try:
            self.pass_length = len(loader)
        except TypeError:  # an IterableDataset without __len__
            self.pass_length = None

    def stepped(self, event: CallEvent, optimizer_steps, scaler_used: bool) -> Finding | None:
        """Record one `scheduler.step()`; GD205 when it comes before the first optimizer step,
        or when an epoch scheduler steps again within the same pass over the data.

        `optimizer_steps(opt)` is the number of steps the audit saw `opt` take (None if unknown).
        """
        from graddoctor.rules import make

        sched = event.target
        info = self._schedulers.get(id(sched))
        opt = getattr(sched, "optimizer", None)
        found = None
        if info is None:
            lrs = [g.get("initial_lr", g.get("lr")) for g in opt.param_groups] if opt is not None else []
            # What is judged at the end is copied now: the scheduler itself may be gone by
            # then (a script's globals are freed when it finishes).
            info = {"cls": type(sched), "opt": id(opt), "calls": 0, "where": event.where, "initial": lrs, "now": lrs,
                    "pass": None, "in_pass": 0, "reported": False, "period": schedule_period(sched)}
            self._schedulers[id(sched)] = info
            steps = optimizer_steps(opt) if opt is not None else None
            # Unknown optimizers (stepped before we attached) are given the benefit of the doubt.
            if steps == 0 and not scaler_used and not getattr(opt, "_opt_called", False):
                found = make(
                    "GD205",
                    f"{type(sched).__name__}.step() is called before the first optimizer.step(): the first "
                    "value of the learning-rate schedule is skipped.",
                    evidence={"scheduler": type(sched).__name__, "optimizer_steps_before": 0},
                    **event.where.shown(),
                )
        info["calls"] += 1
        if opt is not None:
            info["now"] = [g["lr"] for g in opt.param_groups]
        if self.passes:
            if info["pass"] != self.passes:
                info["pass"], info["in_pass"] = self.passes, 0
            info["in_pass"] += 1
            if found is None and not info["reported"] and isinstance(sched, EPOCH_SCHEDULERS):
                found = self._within_one_pass(sched, info, event)
        return found

    # --- repeated iterations (session/rhythm.py: the loop audit sleeps through them) ---------------

    def skippable(self, sched_id: int, per_iteration: int, learning_rates) -> int | None:
        """How many repeated iterations, each stepping scheduler `sched_id` `per_iteration` times, can go
        by unseen with no judgement of it falling in them: None for any number, 0 for none yet (ask again
        after the next), -1 for none while the loop repeats (its optimizer's rate cannot be read).

        Within a pass whose length is known, the judgement is made at the scheduler's second step in it;
        without a length, at the step where its count in the pass reaches its period (the first one that
        comes then is seen). No new pass begins in a repeated stretch: `iter(loader)` would be a new key."""
        info = self._schedulers.get(sched_id)
        if info is None:
            return 0
        if learning_rates(info["opt"]) is None:
            return -1
        if not self.passes or info["reported"] or info["period"] is None or not issubclass(info["cls"], EPOCH_SCHEDULERS):
            return None
        if info["pass"] != self.passes:
            return 0
        n = info["in_pass"]
        if self.pass_length is not None:
            return None if n >= 2 else 0
        threshold = max(2.0, info["period"])
        return max(math.ceil((threshold - n) / per_iteration) - 1, 0)

    def skipped(self, sched_id: int, calls: int, learning_rates) -> None:
        """`calls` steps of scheduler `sched_id` went by unseen (none of them judged: `skippable`)."""
        info = self._schedulers[sched_id]
        info["calls"] += calls
        rates = learning_rates(info["opt"])
        if rates is not None:
            info["now"] = rates
        if self.passes:
            info["in_pass"] += calls

    def _within_one_pass(self, sched, info: dict, event: CallEvent) -> Finding | None:
        from graddoctor.rules import make

        period = schedule_period(sched)
        n, length = info["in_pass"], self.pass_length
        if period is None or n < 2:
            return None
        # The loader's length tells at the second step whether the schedule would change the
        # rate within this pass; without it, wait until it has.
        if length is not None:
            if period >= length:
                return None
        elif n < period:
            return None
        info["reported"] = True
        name = type(sched).__name__
        unit = "patience" if isinstance(sched, lr_scheduler.ReduceLROnPlateau) else "period"
        span = f"a pass of {length} batches" if length is not None else "one pass over the data"
        return make(
            "GD205",
            f"{name} stepped {n} times within one pass over the training data (once per batch), but it is "
            f"an epoch-based scheduler: its {unit} of {period:g} steps is shorter than {span}, so the "
            "learning rate changes within a single epoch instead of across epochs.",
            evidence={"scheduler": name, "steps_in_one_pass": n, "pass_length": length, unit: period},
            **event.where.shown(),
        )

    def per_batch(self, optimizer_steps_by_id) -> list[Finding]:
        """Without DataLoader passes: GD205 for each epoch-based scheduler that stepped about once per
        optimizer step and brought the rate down to `epoch_scheduler_decay` of its start."""
        from graddoctor.rules import make

        out = []
        for info in self._schedulers.values():
            cls = info["cls"]
            if info["reported"] or info["pass"] is not None:
                continue
            steps = optimizer_steps_by_id(info["opt"])
            if steps is None or info["calls"] < 10 or info["calls"] < 0.9 * steps:
                continue
            cycles = _cosine_cycles(cls, info)
            if cycles:
                out.append(make(
                    "GD205",
                    f"{cls.__name__}(T_max={info['period']:g}) stepped {info['calls']} times for {steps} optimizer "
                    f"steps (once per batch): its learning rate went down to its minimum and back up {cycles} "
                    f"time{'s' if cycles != 1 else ''}. T_max counts scheduler steps; sized in epochs and stepped "
                    "per batch, the cosine repeats many times within the run instead of annealing once.",
                    evidence={"scheduler": cls.__name__, "scheduler_steps": info["calls"], "optimizer_steps": steps,
                              "period": info["period"], "cycles": cycles},
                    **info["where"].shown(),
                ))
                continue
            if not issubclass(cls, _DECAY_JUDGED):
                continue
            decayed = [n / i for n, i in zip(info["now"], info["initial"]) if i]
            plateau = issubclass(cls, lr_scheduler.ReduceLROnPlateau)
            # A relative tolerance: 0.1 * 0.1 is 0.010000000000000002, which is 1% all the same.
            if not plateau and not (decayed and max(decayed) <= self.epoch_scheduler_decay * (1 + 1e-9)):
                continue
            what = (f"the learning rate is already down to {max(decayed):.2g} of its start" if decayed and not plateau
                    else "its patience counts batches instead of epochs")
            out.append(make(
                "GD205",
                f"{cls.__name__} is an epoch-based scheduler but stepped {info['calls']} times for "
                f"{steps} optimizer steps (once per batch): {what}.",
                evidence={"scheduler": cls.__name__, "scheduler_steps": info["calls"], "optimizer_steps": steps,
                          "lr_fraction_of_start": max(decayed) if decayed else None},
                **info["where"].shown(),
            ))
        return out


def _cosine_cycles(cls: type, info: dict) -> int:
    """Full down-and-up cycles of a CosineAnnealingLR (its rate is periodic with period 2 * T_max)."""
    period = info.get("period")
    if not issubclass(cls, lr_scheduler.CosineAnnealingLR) or not period:
        return 0
    return int(info["calls"] // (2 * period))
