"""GD309: float16 autocast with no enabled GradScaler, and gradients that underflowed.

Which forwards ran under float16 autocast is read by a forward pre-hook on each root
model (hooked at the first backward and the first steps): one call of
`torch.is_autocast_enabled(device)` per model call, never per submodule. Any call of an
enabled GradScaler ends the judgement. On sampled steps (the first `FIRST`, then one in
`EVERY`) after such a forward, before the optimizer step, the trained parameters'
gradients (up to `PER_PARAMETER` elements each) are counted: exact zeros, and nonzero
elements below 2^-20 (within 16 times of float16's smallest subnormal, 2^-24). The counts
are read back a step later without blocking on an accelerator. Nothing is written.
"""

from __future__ import annotations

import weakref

import torch

from graddoctor.finding import Finding
from graddoctor.graph.phrases import related_at
from graddoctor.internal import record_internal_error
from graddoctor.locate import Location
from graddoctor.numerics.readout import Readout
from graddoctor.rules import make
from graddoctor.session.manual_steps import ManualUpdates
from graddoctor.session.observer import BackwardEvent, CallEvent, Observer, StepEvent
from graddoctor.session.rhythm import sampled_wake

FIRST = 3
EVERY = 10
PER_PARAMETER = 1 << 16
NEAR_FLOOR = 2.0 ** -20
MIN_ZERO = 0.25
MIN_NEAR_FLOOR = 0.05
_MIN_STEPS = 2
_HOOK_STEPS = 3  # models are looked for at the first backward and before the first steps


class Fp16WithoutGradScaler(Observer):
    name = "fp16_without_scaler"
    codes = frozenset({"GD309"})
    _graddoctor_hidden_when_compiled = True

    def __init__(self, first: int = FIRST, every: int = EVERY) -> None:
        self.first, self.every = first, every
        self.hooks: dict[int, tuple[weakref.ref, object]] = {}
        self.fp16 = False  # a root model ran under float16 autocast since the last step
        self.scaler = False  # an enabled GradScaler was called
        self.steps = 0
        self.backward_at: Location | None = None
        self.step_at: Location | None = None
        self.readouts: list[tuple[Readout, int]] = []
        self.measured: list[tuple[int, float, float]] = []  # (step, zero fraction, near-floor fraction)

    # --- lifetime -------------------------------------------------------------------------

    def stop(self) -> None:
        for _, handle in self.hooks.values():
            handle.remove()
        self.hooks = {}

    def _hook_models(self) -> None:
        for root in self.session.models().values():
            known = self.hooks.get(id(root))
            if known is not None and known[0]() is root:
                continue
            if getattr(root, "_compiled_call_impl", None) is not None:
                continue  # a new hook on a compiled model would recompile it
            self.hooks[id(root)] = (weakref.ref(root), root.register_forward_pre_hook(self._forward))

    def _forward(self, module, args) -> None:
        if self.fp16 or self.scaler or torch.compiler.is_compiling():
            return
        try:
            # Read with every torch-function handler off (a subclass's own, and deep mode's): a subclass
            # that counts or traces its ops (quantisation, tracing libraries) must not see graddoctor's
            # reads as the user's.
            with torch._C.DisableTorchFunction():
                device = next((a.device.type for a in args if isinstance(a, torch.Tensor)), None)
            for kind in ((device,) if device else ("cuda", "cpu")):
                if torch.is_autocast_enabled(kind) and torch.get_autocast_dtype(kind) == torch.float16:
                    self.fp16 = True
        except Exception:  # an unknown device type, an old torch: no judgement, never the user's failure
            record_internal_error(self.session, "GD309 forward pre-hook")
            self.scaler = True

    # --- events ---------------------------------------------------------------------------

    def on_call(self, event: CallEvent) -> None:
        if event.kind == "scaler" and not self.scaler:
            enabled = getattr(event.target, "is_enabled", None)
            self.scaler = bool(enabled()) if callable(enabled) else True

    def before_backward(self, event: BackwardEvent) -> None:
        if event.index == 0 and not self.scaler:
            self._hook_models()
        self.backward_at = event.where

    def before_step(self, event: StepEvent) -> None:
        if isinstance(event.optimizer, ManualUpdates):
            return
        self.steps += 1
        fp16, self.fp16 = self.fp16, False
        if self.steps <= _HOOK_STEPS and not self.scaler:
            self._hook_models()
        if not fp16 or self.scaler or (self.steps > self.first and self.steps % self.every):
            return
        grads = [p.grad.detach().reshape(-1)[:PER_PARAMETER] for g in event.optimizer.param_groups
                 for p in g["params"] if p.grad is not None and p.grad.layout == torch.strided
                 and p.grad.is_floating_point()]
        if not grads:
            return
        flat = torch.cat([g.float() for g in grads]) if len(grads) > 1 else grads[0].float()
        magnitude = flat.abs()
        counts = torch.stack([(magnitude == 0).sum(), ((magnitude > 0) & (magnitude < NEAR_FLOOR)).sum()])
        self.readouts.append((Readout(counts.float() / flat.numel()), self.steps))
        self.step_at = self.step_at or event.where
        self._drain(wait=False)

    def wake_in(self, rhythm) -> int | None:
        """Once an enabled GradScaler was seen it has nothing left to do; else it measures the first steps
        and one in `every` (when the step's forward ran under float16 autocast): it sees the repeated
        iterations that hold such a step and counts the others' steps in `resync`."""
        if self.scaler:
            return None
        wake = sampled_wake(self.steps, sum(rhythm.steps.values()), max(self.first, _HOOK_STEPS), self.every)
        return self.every if wake is None else wake

    def resync(self, skipped: int, prefix: tuple, rhythm) -> None:
        self.steps += skipped * sum(rhythm.steps.values()) + sum(1 for k in prefix if k[0] == "step")
        if not prefix:
            # at an iteration's start: what its forwards run under is what its step judges, as when
            # every step resets the flag
            self.fp16 = False

    def _drain(self, wait: bool) -> None:
        while self.readouts and (wait or self.readouts[0][0].ready()):
            readout, step = self.readouts.pop(0)
            zero, near = readout.values()
            self.measured.append((step, zero, near))

    # --- results --------------------------------------------------------------------------

    def findings(self) -> list[Finding]:
        self._drain(wait=True)
        if self.scaler:
            return []
        flagged = [m for m in self.measured if m[1] >= MIN_ZERO and m[2] >= MIN_NEAR_FLOOR]
        if len(flagged) < _MIN_STEPS or self.backward_at is None:
            return []
        zero = sum(m[1] for m in flagged) / len(flagged)
        near = sum(m[2] for m in flagged) / len(flagged)
        message = (f"The forward ran under float16 autocast and no GradScaler is enabled: on {len(flagged)} of "
                   f"{len(self.measured)} measured steps, {zero:.0%} of the gradient elements were exactly 0 and "
                   f"{near:.0%} more were within 16x of float16's smallest number (2^-24), so gradients smaller "
                   "than that underflowed to 0 and those updates were lost.")
        evidence = {"zero_fraction": round(zero, 4), "near_floor_fraction": round(near, 4),
                    "autocast_dtype": "float16", "grad_scaler_seen": False,
                    "flagged_steps": len(flagged), "measured_steps": len(self.measured), "first_step": flagged[0][0]}
        return [make("GD309", message, step=flagged[0][0], evidence=evidence,
                     related=related_at(self.step_at, "the optimizer step that gets the underflowed gradients"),
                     **self.backward_at.shown())]
