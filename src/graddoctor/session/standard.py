"""The standard set of observers, shared by `graddoctor run` and `watch()`.

One place decides what runs: `run` and `watch()` differ only in the options
they pass (run walks more, and starts in deep mode).
"""

from __future__ import annotations

from graddoctor.session.observer import Observer


def standard_observers(*, mode: str = "watch", deep: bool = False, **options) -> list[Observer]:
    from graddoctor.distributed.ddp import DDPObserver
    from graddoctor.graph.observer import GraphObserver
    from graddoctor.loop.audit import LoopAudit
    from graddoctor.loop.kept_alive import KeptAlive
    from graddoctor.lossdata import LossDataObserver
    from graddoctor.numerics.layers import LayerStats
    from graddoctor.numerics.options import NumericsOptions

    walk_every = options.pop("walk_every", 10 if mode == "run" else 100)
    numerics = NumericsOptions.take(options)
    observers: list[Observer] = [
        GraphObserver(walk_first=options.pop("walk_first", 3), walk_every=walk_every),
        LoopAudit(amp_skip_fraction=numerics.amp_skip_fraction),
        KeptAlive(every=options.pop("kept_alive_every", 50)),
        LayerStats(numerics),
        DDPObserver(),
        LossDataObserver(),
    ]
    from graddoctor.provenance import ProvenanceObserver

    if deep:
        # `run` records for the first steps only; watch(deep=True) for the whole session.
        observers.append(ProvenanceObserver(deep_steps=options.pop("deep_steps", 3 if mode == "run" else None)))
    else:
        observers.append(ProvenanceObserver(deep_steps=0))  # dormant: one deep step after a NaN/Inf only
    return observers
