"""`watch()`: the always-on audit of a training loop, from Python.

    with graddoctor.watch(model, optimizer) as w:
        for x, y in loader:
            ...
    print(w.report())

The same observers as `graddoctor run` (graddoctor/assembly.py), attached for the
duration of the block (or between `.attach()` and `.detach()`).
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import nn

from graddoctor.assembly import standard_session
from graddoctor.report.report import Report
from graddoctor.runner.lifecycle import Run
from graddoctor.session.session import SessionHandle

_OWN_OPTIONS = ("walk_every", "walk_first", "kept_alive_every")


class Watch(SessionHandle):
    """An attached (or attachable) watch over a training loop; see `watch()`."""

    def __init__(self, model=None, optimizer=None, *, deep: bool = False, max_steps: int | None = None, **opts) -> None:
        from graddoctor.numerics.options import NumericsOptions

        known = {f for f in NumericsOptions.__dataclass_fields__} | set(_OWN_OPTIONS)
        unknown = sorted(set(opts) - known)
        if unknown:
            raise TypeError(f"watch() got unknown option(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        self.session = standard_session(mode="watch", deep=deep, models=model, optimizers=optimizer,
                                        max_steps=max_steps, **opts)
        self.observers = self.session.observers
        self._run = Run(self.session, command="watch")

    def attach(self) -> "Watch":
        self._run.attach()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        # The block's exception is the user's: classified (a crash, --max-steps, Ctrl-C) and left to propagate.
        self._run.end(exc)

    @property
    def steps(self) -> int:
        return self.session.steps_taken

    def layer_stats(self):
        from graddoctor.numerics.layers import LayerStats

        return next((o for o in self.observers if isinstance(o, LayerStats)), None)

    def report(self) -> Report:
        """The findings so far (callable while attached, and after)."""
        return self._run.so_far()

    def plot(self, path: str) -> str:
        """Write the gradient-flow chart of the watched layers to `path` (a PNG; needs matplotlib)."""
        return self.report().plot(path)


def watch(
    model: nn.Module | Iterable[nn.Module] | dict[str, nn.Module] | None = None,
    optimizer: torch.optim.Optimizer | Iterable[torch.optim.Optimizer] | dict[str, torch.optim.Optimizer] | None = None,
    **opts,
) -> Watch:
    """Watch a training loop: call order, numerics and gradient flow, at low cost.

    Use as a context manager or with `.attach()` / `.detach()`; `.report()`
    returns the Report. `deep=True` also records cut provenance. Thresholds
    (see `graddoctor.numerics.options.NumericsOptions`) can be set here, e.g.
    `watch(model, opt, vanish_ratio=1e-6, stall_steps=100)`. Optimizers given as a dict
    (`watch(models, {"G": opt_G, "D": opt_D})`) are counted under those names in the report's
    `steps_by_optimizer`; otherwise under the script's global names for them, else their class.
    """
    return Watch(model, optimizer, **opts)
