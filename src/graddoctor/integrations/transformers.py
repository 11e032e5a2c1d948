"""`GradDoctorCallback` for the Hugging Face Transformers `Trainer`.

    trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=[GradDoctorCallback()])
    trainer.train()

graddoctor watches `train()` from `on_train_begin` to `on_train_end`, with the
Trainer's model and optimizer. If training raises, the callback still detaches
and explains the exception: it wraps this Trainer's `train` method (the
instance attribute only) when the Trainer is built with the callback. The
Trainer runs backward and the optimizer step itself, so findings point at the
user's `trainer.train()` line, or into the user's own `compute_loss` when a
Trainer subclass overrides it; optimizer findings point at the `Trainer(...)` line.
"""

from __future__ import annotations

import functools
import sys
from types import FrameType

import transformers

from graddoctor.integrations.core import CallbackState, WatchedRun, fail_if, show
from graddoctor.integrations.source import returned_value_line
from graddoctor.locate import NOWHERE, Location, redirect_entry, user_frame, user_location
from graddoctor.session.registry import remember_creation


class GradDoctorCallback(CallbackState, transformers.TrainerCallback):
    """Watches `trainer.train()` with graddoctor and reports what keeps the model from learning.

    Args:
        fail_on: "error", "warning", "info" or "never" (default): when findings
            reach this severity, `train()` raises `GradDoctorFailed` at its end.
        print_report: print the report when training ends (on the main process).
        deep: turn on cut provenance (slower; names more lines).

    After `train()`, `callback.report()` returns the Report.
    """

    _trains_with = "trainer.train()"

    def __init__(self, *, fail_on: str = "never", print_report: bool = True, deep: bool = False) -> None:
        CallbackState.__init__(self, fail_on=fail_on, print_report=print_report, deep=deep)
        self._trainer = None
        self._built_at: Location = NOWHERE

    # --- Trainer events ----------------------------------------------------------------------

    def on_init_end(self, args, state, control, **kwargs):
        trainer = _calling_trainer(sys._getframe(1))
        if trainer is None or self._trainer is trainer:
            return
        self._trainer = trainer
        self._built_at = user_location(sys._getframe(1))
        _guard_train(trainer, self)

    def on_train_begin(self, args, state, control, model=None, optimizer=None, **kwargs):
        if self._run is not None:
            return
        self._report = None
        trainer = self._trainer or _calling_trainer(sys._getframe(1))
        optimizers = [_unwrap(optimizer)] if optimizer is not None else []
        for opt in optimizers:
            remember_creation(opt, self._built_at if self._built_at.file else user_location(sys._getframe(1)))
        self._run = WatchedRun(target=type(model).__name__, models={"model": model}, optimizers=optimizers, deep=self.deep)
        entry = user_frame(sys._getframe(1))
        loss_line = returned_value_line(type(trainer), "compute_loss") if trainer is not None else NOWHERE
        if entry is not None and loss_line.file:
            self._redirect = redirect_entry(entry, lambda start: loss_line)
        self._run.attach()

    def on_train_end(self, args, state, control, **kwargs):
        self.finish(None, is_main=getattr(args, "process_index", 0) == 0)
        if not getattr(getattr(self._trainer, "train", None), "_graddoctor_guard", False):
            fail_if(self.report(), self.fail_on)  # no guard around train(): fail here

    # --- results -------------------------------------------------------------------------------

    def finish(self, exc: BaseException | None, *, is_main: bool = True) -> None:
        """Detach and report (called at the end of training, or when it raised)."""
        report = self._close(exc)
        if report is None:
            return
        if self.print_report and is_main:
            show(report)


def _calling_trainer(frame: FrameType | None):
    """The Trainer whose method is running further out on the stack (callbacks are not given it)."""
    while frame is not None:
        owner = frame.f_locals.get("self") if frame.f_code.co_name in ("__init__", "train", "_inner_training_loop") else None
        if isinstance(owner, transformers.Trainer):
            return owner
        frame = frame.f_back
    return None


def _guard_train(trainer, callback: GradDoctorCallback) -> None:
    """Make this Trainer's `train()` detach graddoctor however it ends."""
    original = trainer.train
    if getattr(original, "_graddoctor_guard", False):
        return

    @functools.wraps(original)
    def train(*args, **kwargs):
        try:
            result = original(*args, **kwargs)
        except BaseException as exc:
            callback.finish(exc, is_main=trainer.args.process_index == 0)
            raise
        callback.finish(None, is_main=trainer.args.process_index == 0)
        fail_if(callback.report(), callback.fail_on)
        return result

    train._graddoctor_guard = True  # type: ignore[attr-defined]
    trainer.train = train


def _unwrap(optimizer):
    """accelerate's AcceleratedOptimizer wraps the torch optimizer."""
    inner = getattr(optimizer, "optimizer", None)
    return inner if inner is not None and hasattr(inner, "param_groups") else optimizer


__all__ = ["GradDoctorCallback"]
