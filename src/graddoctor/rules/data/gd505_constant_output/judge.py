"""GD505: the model's output is the same for every sample of the batch, step after step.

Measured per checked call: the largest difference between any row of the
loss input and its first row. Only exactly 0 counts (a generator whose output
is merely similar early on is not constant). After enough consecutive
constant checks, one forward pass is probed with a global forward hook. A
constant value at the loss is evidence only when some layer of the model
makes its output independent of its input: the probe finds the first module
(in the order modules finish) whose output is constant, and reports when that
module's input did vary (a dead ReLU, a normalisation over one value; the
related line) and the model's own input was not constant. When the first
constant output came from a module whose input was already constant, up to
rounding, or not floating point, the output does depend on the input through a
discrete choice: a VQ-VAE batch whose vectors all picked one code (the
embedding lookup is constant, and the straight-through `x + (q - x).detach()`
equals `q` up to rounding) is no evidence, and nothing is said. The hook is
removed at the next loss call, and at `stop()` in any case.
"""

from __future__ import annotations

import sys

import torch
from torch import nn

from graddoctor.finding import Finding, Related
from graddoctor.internal import record_internal_error
from graddoctor.locate import Location, user_location
from graddoctor.lossdata import patches
from graddoctor.lossdata.places import defined_at
from graddoctor.lossdata.calls import LossCall
from graddoctor.rules import make

_STREAK = 8  # consecutive constant checks...
_SPAN = 15  # ...spanning at least this many calls of the loss


class ConstantOutput:
    def __init__(self) -> None:
        self.streaks: dict[tuple, list[LossCall]] = {}  # loss line -> first and last call of the streak
        self.found: dict[tuple, Finding] = {}
        self.session = None
        self._probe: "_Probe | None" = None
        self._ready: tuple | None = None  # the streak waiting for its probe

    def wants(self, call: LossCall) -> bool:
        return call.input_shape[0] >= 2 and (call.where.file, call.where.line) not in self.found

    def measure(self, call: LossCall, x: torch.Tensor, target) -> list[torch.Tensor]:
        rows = patches.row_view(x)
        return [(rows - rows[:1]).abs().amax()]

    def take(self, call: LossCall, values: list[float]) -> None:
        key = (call.where.file, call.where.line)
        if values[0] != 0.0:
            self.streaks.pop(key, None)
            return
        streak = self.streaks.setdefault(key, [call, call, 0])
        streak[1] = call
        streak[2] += 1
        if streak[2] >= _STREAK and call.index - streak[0].index >= _SPAN and key not in self.found:
            if self._probe is None and self._ready is None:
                self._ready = key
                self._probe = _Probe(self.session)

    def on_loss_call(self) -> None:
        """Every loss call (checked or not): a probe that saw a forward pass is read and removed."""
        probe = self._probe
        if probe is not None and probe.seen:
            self._probe = None
            probe.remove()
            key, self._ready = self._ready, None
            self._report(key, probe)

    def stop(self) -> None:
        if self._probe is not None:
            self._probe.remove()
            self._probe = None
        if self._ready is not None:  # the run ended before the probe saw a forward pass
            key, self._ready = self._ready, None
            self._report(key, None)

    def _report(self, key: tuple, probe: "_Probe | None") -> None:
        first, last, checks = self.streaks.get(key, (None, None, 0))
        if last is None:
            return
        where, related = last.where, []
        layer = None
        if probe is not None:
            if probe.input_constant or not probe.collapsed:
                return  # identical rows in the batch itself, or no layer that ignores its input
            if probe.called_at is not None and probe.called_at.file:
                where = probe.called_at
                related.append(Related(last.where.shown()["file"], last.where.line, "the loss that gets the output"))
            layer = probe.first_constant
        message = (f"The model's output was the same for every sample of the batch (input of {last.name}, shape "
                   f"{tuple(last.input_shape)}) on {checks} consecutive checks over {last.index - first.index + 1} "
                   "loss calls: it does not depend on its input, so the model can at best learn the average target.")
        if layer is not None:
            name, line = layer
            message += f" The first layer whose output is constant is `{name}`."
            if line is not None and line.file:
                related.append(Related(line.shown()["file"], line.line, f"`{name}` is defined here; its output is "
                                                                        "the same for every sample"))
        evidence = {"checks": checks, "loss_calls": last.index - first.index + 1, "probed": probe is not None}
        if layer is not None and layer[1] is not None and layer[1].file:
            # Where the first constant layer is defined: its edit (a dead final ReLU dropped) starts there.
            evidence.update(first_constant=layer[0], first_constant_line=layer[1].line)
        self.found[key] = make("GD505", message, related=related, step=last.step, evidence=evidence, **where.shown())

    def findings(self) -> list[Finding]:
        return list(self.found.values())


class _Probe:
    """One forward pass watched by global forward hooks (removed by `remove()`)."""

    _graddoctor_hidden_when_compiled = True  # session/compiled.py takes the hook off around compiled code

    def __init__(self, session) -> None:
        self.session = session
        self.failed = False  # our bookkeeping failed: recorded once, then the probe looks at nothing more
        self.seen = False
        self.called_at: Location | None = None
        self.input_constant = False
        self.collapsed = False  # a module whose input varied gave the same output for every sample
        self.first_constant: tuple[str, Location | None] | None = None
        self._spreads: list[tuple[nn.Module, list[torch.Tensor], float]] = []
        self._names: dict[int, str] = {}
        self._owners: dict[int, tuple[nn.Module, str]] = {}
        roots = session.models().values() if session is not None else []
        for root in roots:
            for name, module in root.named_modules():
                self._names.setdefault(id(module), name or type(root).__name__)
                for attr, child in module._modules.items():
                    if child is not None:
                        self._owners.setdefault(id(child), (module, attr))
        self._roots = {id(r) for r in roots}
        self._handles = [nn.modules.module.register_module_forward_pre_hook(self._pre),
                         nn.modules.module.register_module_forward_hook(self._hook)]

    def _pre(self, module: nn.Module, args) -> None:
        if id(module) in self._roots and not self.seen:
            self._spreads = []  # the tail of a forward pass already under way when the probe began

    def _hook(self, module: nn.Module, args, output) -> None:
        if self.failed:
            return
        try:
            if id(module) not in self._names:
                return
            out = _measurable(output)
            if out is not None:
                inp = _measurable(args)
                rows = [patches.row_view(out)] + ([patches.row_view(inp)] if inp is not None else [])
                noise = 64 * torch.finfo(out.dtype).eps  # a few roundings of the output's dtype
                values = [v for r in rows for v in ((r - r[:1]).abs().amax(), r.abs().amax())]
                self._spreads.append((module, values, noise))
            if id(module) in self._roots:
                self.seen = True
                self.called_at = user_location(sys._getframe(1))
                first = next((a for a in args if isinstance(a, torch.Tensor)), None)
                if first is not None and first.dim() > 0 and first.shape[0] >= 2 and first.is_floating_point():
                    rows = patches.row_view(first)
                    self.input_constant = bool((rows == rows[:1]).all())
                self._finish()
        except (RuntimeError, NotImplementedError):
            pass  # a tensor torch cannot measure so (meta, sparse, nested): the probe says less, the step goes on
        except Exception:  # our bug: recorded, never the user's failure
            self.failed = True
            if self.session is not None:
                record_internal_error(self.session, "GD505 forward hook")

    def _finish(self) -> None:
        if not self._spreads:
            return
        values = torch.stack([v.float() for _, vs, _ in self._spreads for v in vs]).tolist()
        at = 0
        for module, vs, noise in self._spreads:
            spread, scale = values[at:at + 2]
            varied = len(vs) == 4 and values[at + 2] > noise * values[at + 3]
            at += len(vs)
            if spread <= noise * scale:
                # the first constant output: evidence only when this module's own input varied
                self.collapsed = varied
                if varied and id(module) not in self._roots:
                    self.first_constant = (self._names[id(module)], self._defined_at(module))
                break
        self._spreads = []

    def _defined_at(self, module: nn.Module) -> Location | None:
        return defined_at(module, self._owners)

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._spreads = []


def _measurable(value) -> torch.Tensor | None:
    """The first floating tensor with a batch of 2 or more in a module's input or output."""
    if isinstance(value, torch.Tensor):
        ok = value.dim() > 0 and value.shape[0] >= 2 and value.is_floating_point()
        return value if ok else None
    if not isinstance(value, (tuple, list, dict)):
        return None
    items = value.values() if isinstance(value, dict) else value
    return next((t for t in map(_measurable, items) if t is not None), None)
