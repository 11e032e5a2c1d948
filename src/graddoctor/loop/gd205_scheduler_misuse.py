"""GD205 scheduler-misuse at runtime: a scheduler stepped before the first optimizer step,
or an epoch-based scheduler stepped once per batch.

Fed by the loop audit with every user call of `lr_scheduler.step()`; the first
case is judged at that call, the second at the end of the run.
"""

from __future__ import annotations

from torch.optim import lr_scheduler

from graddoctor.finding import Finding
from graddoctor.session.observer import CallEvent

# Schedulers whose step size is counted in epochs by convention.
EPOCH_SCHEDULERS = (lr_scheduler.StepLR, lr_scheduler.MultiStepLR, lr_scheduler.ExponentialLR,
                    lr_scheduler.ReduceLROnPlateau)


class SchedulerSteps:
    """What is known of each scheduler the user stepped."""

    def __init__(self, epoch_scheduler_decay: float = 0.01) -> None:
        self.epoch_scheduler_decay = epoch_scheduler_decay
        self._schedulers: dict[int, dict] = {}

    def stepped(self, event: CallEvent, optimizer_steps, scaler_used: bool) -> Finding | None:
        """Record one `scheduler.step()`; GD205 when it comes before the first optimizer step.

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
            info = {"cls": type(sched), "opt": id(opt), "calls": 0, "where": event.where, "initial": lrs, "now": lrs}
            self._schedulers[id(sched)] = info
            steps = optimizer_steps(opt) if opt is not None else None
            # Unknown optimizers (stepped before we attached) are given the benefit of the doubt.
            if steps == 0 and not scaler_used and not getattr(opt, "_opt_called", False):
                found = make(
                    "GD205",
                    f"{type(sched).__name__}.step() is called before the first optimizer.step(): the first "
                    "value of the learning-rate schedule is skipped.",
                    **event.where.shown(),
                )
        info["calls"] += 1
        if opt is not None:
            info["now"] = [g["lr"] for g in opt.param_groups]
        return found

    def per_batch(self, optimizer_steps_by_id) -> list[Finding]:
        """GD205 for each epoch-based scheduler that stepped about once per optimizer step."""
        from graddoctor.rules import make

        out = []
        for info in self._schedulers.values():
            cls = info["cls"]
            if not issubclass(cls, EPOCH_SCHEDULERS):
                continue
            steps = optimizer_steps_by_id(info["opt"])
            if steps is None or info["calls"] < 10 or info["calls"] < 0.9 * steps:
                continue
            decayed = [n / i for n, i in zip(info["now"], info["initial"]) if i]
            plateau = issubclass(cls, lr_scheduler.ReduceLROnPlateau)
            if not plateau and not (decayed and max(decayed) <= self.epoch_scheduler_decay):
                continue
            what = (f"the learning rate is already down to {max(decayed):.2g} of its start" if decayed and not plateau
                    else "its patience counts batches instead of epochs")
            out.append(make(
                "GD205",
                f"{cls.__name__} is an epoch-based scheduler but stepped {info['calls']} times for "
                f"{steps} optimizer steps (once per batch): {what}.",
                **info["where"].shown(),
            ))
        return out
