"""`GradDoctorCallback` for the Lightning Trainer (`lightning.pytorch` or `pytorch_lightning`).

    trainer = pl.Trainer(max_epochs=1, callbacks=[GradDoctorCallback()])
    trainer.fit(model)

graddoctor watches `fit` from `setup` to `teardown` (or the exception), with the
LightningModule as the model and the optimizers that `configure_optimizers`
builds. Lightning calls `backward()` and `optimizer.step()` from its own loop,
so findings point into the LightningModule: the backward at the line where
`training_step` returns its loss, a step at the line of `configure_optimizers`
that built the optimizer (a manual-optimization `training_step` or an
overridden `optimizer_step` is named as it is).

The Lightning package is imported when this module is: the one the user already
imported (`lightning` or `pytorch_lightning`), else `lightning`.
"""

from __future__ import annotations

import sys
import uuid
from types import FrameType, SimpleNamespace

import torch

from graddoctor.integrations.core import CallbackState, WatchedRun, fail_if, show
from graddoctor.integrations.source import returned_value_line
from graddoctor.locate import NOWHERE, Location, redirect_entry, user_frame
from graddoctor.session.registry import record_for


def _callback_bases() -> tuple[type, ...]:
    """The Callback class of each Lightning flavour in use (the Trainer checks isinstance)."""
    bases = []
    if "lightning.pytorch" in sys.modules or "lightning" in sys.modules:
        import lightning.pytorch

        bases.append(lightning.pytorch.Callback)
    if "pytorch_lightning" in sys.modules:
        import pytorch_lightning

        bases.append(pytorch_lightning.Callback)
    if not bases:
        try:
            import lightning.pytorch

            bases.append(lightning.pytorch.Callback)
        except ImportError:
            import pytorch_lightning

            bases.append(pytorch_lightning.Callback)
    return tuple(bases)


class _GradDoctorCallback(CallbackState):
    """Watches `trainer.fit` with graddoctor and reports what keeps the model from learning.

    Args:
        fail_on: "error", "warning", "info" or "never" (default): when findings
            reach this severity, `fit` raises `GradDoctorFailed` at its end.
        print_report: print the report when training ends (on global rank 0).
        deep: turn on cut provenance (slower; names more lines).

    After `fit`, `callback.report()` returns the Report.
    """

    _trains_with = "trainer.fit()"

    def __init__(self, *, fail_on: str = "never", print_report: bool = True, deep: bool = False) -> None:
        CallbackState.__init__(self, fail_on=fail_on, print_report=print_report, deep=deep)
        self._step_line: Location = NOWHERE
        self._run_key: str | None = None  # set when fit runs on several ranks

    # --- Lightning hooks -------------------------------------------------------------------

    def setup(self, trainer, pl_module, stage: str) -> None:
        if stage != "fit" or self._run is not None:
            return
        self._report = None
        # Attach before configure_optimizers runs, so that the optimizers' lines are the user's.
        self._run = WatchedRun(target=type(pl_module).__name__, models={"model": pl_module}, deep=self.deep)
        self._step_line = returned_value_line(type(pl_module), "training_step")
        entry = user_frame(sys._getframe(1))
        if entry is not None:
            self._redirect = redirect_entry(entry, self._where)
        self._run.attach()

    def on_fit_start(self, trainer, pl_module) -> None:
        if self._run is None:
            return
        self._run.add_optimizers(_unwrap(opt) for opt in trainer.optimizers)
        wrapper = getattr(getattr(trainer, "strategy", None), "model", None)
        if isinstance(wrapper, torch.nn.parallel.DistributedDataParallel):
            # strategy="ddp" wraps the module only now: watch the wrapper (GD401, GD402 look for
            # it), named as the module (graph/naming.py unwraps DDP).
            self._run.session.discovered.watch_models({"model": wrapper})
        if getattr(trainer, "world_size", 1) > 1:
            # The ranks' results meet in a store named by a token rank 0 draws: fit start is a
            # point every rank passes together, and a later launch on the same port gets a new store.
            self._run_key = "lightning/" + str(trainer.strategy.broadcast(uuid.uuid4().hex, src=0))

    def on_exception(self, trainer, pl_module, exception: BaseException) -> None:
        self._finish(trainer, exception)

    def teardown(self, trainer, pl_module, stage: str) -> None:
        if stage == "fit":
            self._finish(trainer, None)

    # --- results ----------------------------------------------------------------------------

    def _finish(self, trainer, exc: BaseException | None) -> None:
        observers = list(self._run.session.observers) if self._run is not None else []
        report = self._close(exc)
        if report is None:
            return
        if self._run_key is not None:
            report = self._report = _merged(trainer, self._run_key, report, observers)
            self._run_key = None
        if self.print_report and getattr(trainer, "is_global_zero", True):
            show(report)
        if exc is None:
            fail_if(report, self.fail_on)

    def _where(self, start: FrameType) -> Location:
        """Where an event raised from inside Lightning's loop belongs in the user's module."""
        # An optimizer step is observed from torch's step wrapper itself; anything
        # else (backward, zero_grad, clipping) belongs to the training step.
        owner = start.f_locals.get("self") if start.f_code.co_name in ("wrapper", "step") else None
        if isinstance(owner, torch.optim.Optimizer):
            built = record_for([owner])[0].created_at
            if built.file:
                return built
        return self._step_line


def _merged(trainer, run_key: str, report, observers):
    """Rank 0: one report for all ranks (their findings, GD402); other ranks: their own."""
    from graddoctor.distributed.context import DistContext
    from graddoctor.runner.gather import gather

    ctx = DistContext(trainer.global_rank, trainer.world_size, run_key, None)
    gathered = gather(ctx, report, SimpleNamespace(observers=observers), 0, "never")
    gathered.done()
    return gathered.report


def _unwrap(optimizer):
    """Lightning's LightningOptimizer wraps the torch optimizer."""
    return getattr(optimizer, "optimizer", optimizer) if not isinstance(optimizer, torch.optim.Optimizer) else optimizer


class GradDoctorCallback(_GradDoctorCallback, *_callback_bases()):  # type: ignore[misc]
    __doc__ = _GradDoctorCallback.__doc__

__all__ = ["GradDoctorCallback"]
