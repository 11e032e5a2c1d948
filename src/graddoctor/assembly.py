"""The runtime producers, assembled: the standard observer set, wired together, and
what is done with their findings taken together.

One place decides what runs: `run` and `watch()` differ only in the options
they pass (run walks more, and starts in deep mode). The observers that need
another's answers are given it here, by name: the graph observer and the
numerics ask deep mode (provenance), the numerics ask the loop audit.
"""

from __future__ import annotations

from graddoctor.conclusions import conclude
from graddoctor.observers.ddp import DDPObserver
from graddoctor.observers.graph import GraphObserver
from graddoctor.observers.loop_audit import LoopAudit
from graddoctor.rules.loop.gd211_evaluation_in_training_mode.judge import EvaluationInTrainingMode
from graddoctor.rules.loop.gd207_graph_kept_alive.judge import KeptAlive
from graddoctor.rules.loop.gd213_wrong_optimizer_stepped.judge import WrongOptimizerStepped
from graddoctor.rules.loop.gd212_accumulation_without_scaling.judge import AccumulationWithoutScaling
from graddoctor.observers.lossdata import LossDataObserver
from graddoctor.rules.data.gd506_batch_dimension_mix_up.judge import BatchDimensionMixUp
from graddoctor.rules.data.gd507_all_targets_ignored.judge import AllTargetsIgnored
from graddoctor.observers.numerics import NumericsObserver
from graddoctor.rules.numerics.gd308_low_precision_updates_lost.judge import LowPrecisionUpdatesLost
from graddoctor.rules.numerics.gd309_fp16_autocast_without_grad_scaler.judge import Fp16WithoutGradScaler
from graddoctor.numerics.options import NumericsOptions
from graddoctor.observers.provenance import ProvenanceObserver
from graddoctor.session.observer import Observer
from graddoctor.session.session import Session


def standard_observers(*, mode: str = "watch", deep: bool = False, **options) -> list[Observer]:
    walk_every = options.pop("walk_every", 10 if mode == "run" else 100)
    numerics = NumericsOptions.take(options)
    # `run` records its first steps deeply; watch(deep=True) the whole session; otherwise
    # deep mode is dormant and records one step only when a NaN/Inf asks for it.
    deep_steps = options.pop("deep_steps", 3 if mode == "run" else None) if deep else 0
    provenance = ProvenanceObserver(deep_steps=deep_steps)
    loop = LoopAudit(amp_skip_fraction=numerics.amp_skip_fraction)
    return [
        GraphObserver(walk_first=options.pop("walk_first", 3), walk_every=walk_every, cuts=provenance),
        loop,
        EvaluationInTrainingMode(),
        KeptAlive(every=options.pop("kept_alive_every", 50)),
        WrongOptimizerStepped(),
        AccumulationWithoutScaling(),
        NumericsObserver(numerics, deep=provenance, loop=loop),
        LowPrecisionUpdatesLost(),
        Fp16WithoutGradScaler(),
        DDPObserver(),
        LossDataObserver(),
        BatchDimensionMixUp(),
        AllTargetsIgnored(),
        provenance,
    ]


def standard_session(*, mode: str = "watch", deep: bool = False, models=None, optimizers=None,
                     max_steps: int | None = None, namespace: dict | None = None, **options) -> Session:
    """A Session over the standard observers, whose findings end with the conclusions drawn across them
    (`graddoctor.conclusions.conclude`: superseded subjects moved, GD505 after the lr, GD306's other causes)."""
    return Session(standard_observers(mode=mode, deep=deep, **options), models=models, optimizers=optimizers,
                   max_steps=max_steps, namespace=namespace, conclude=conclude)

