"""The runtime producers, assembled: the standard observer set, wired together, and
what is done with their findings taken together.

One place decides what runs: `run` and `watch()` differ only in the options
they pass (run walks more, and starts in deep mode). The observers that need
another's answers are given it here, by name: the graph observer and the
numerics ask deep mode (provenance), the numerics ask the loop audit.
"""

from __future__ import annotations

from graddoctor.observers.ddp import DDPObserver
from graddoctor.finding import Finding
from graddoctor.observers.graph import GraphObserver
from graddoctor.graph.phrases import name_list
from graddoctor.observers.loop_audit import LoopAudit
from graddoctor.rules.loop.gd211_evaluation_in_training_mode.judge import EvaluationInTrainingMode
from graddoctor.rules.loop.gd207_graph_kept_alive.judge import KeptAlive
from graddoctor.observers.lossdata import LossDataObserver
from graddoctor.conclusions.constant_output_explained_by_learning_rate import explained_by_learning_rate
from graddoctor.rules.data.gd506_batch_dimension_mix_up.judge import BatchDimensionMixUp
from graddoctor.observers.numerics import NumericsObserver
from graddoctor.numerics.options import NumericsOptions
from graddoctor.rules.numerics.gd306_loss_not_decreasing.judge import name_other_causes
from graddoctor.observers.provenance import ProvenanceObserver
from graddoctor.rules import get_rule
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
        NumericsObserver(numerics, deep=provenance, loop=loop),
        DDPObserver(),
        LossDataObserver(),
        BatchDimensionMixUp(),
        provenance,
    ]


def standard_session(*, mode: str = "watch", deep: bool = False, models=None, optimizers=None,
                     max_steps: int | None = None, namespace: dict | None = None, **options) -> Session:
    """A Session over the standard observers, concluding with the catalogue's superseding rule, then
    with GD306 naming the findings that explain a stalled loss."""
    return Session(standard_observers(mode=mode, deep=deep, **options), models=models, optimizers=optimizers,
                   max_steps=max_steps, namespace=namespace, conclude=conclude)


def conclude(findings: list[Finding]) -> list[Finding]:
    """What is done with the observers' findings taken together."""
    return name_other_causes(explained_by_learning_rate(drop_superseded(findings)))


def drop_superseded(findings: list[Finding]) -> list[Finding]:
    """Remove the subjects that a more specific rule already explains from the generic finding.

    A rule names the codes it supersedes (GD401 supersedes GD104: under DDP an
    unused parameter is the same fact, with the DDP-specific consequence and fix).
    A superseded finding left with no subject is dropped.
    """
    covered: dict[str, dict[str, str]] = {}  # superseded code -> subject -> the code explaining it
    for f in findings:
        for code in get_rule(f.code).supersedes:
            for subject in f.subjects:
                covered.setdefault(code, {}).setdefault(subject, f.code)
    if not covered:
        return findings
    out = []
    for f in findings:
        taken = covered.get(f.code)
        if taken and f.subjects:
            left = [s for s in f.subjects if s not in taken]
            if not left:
                continue
            if len(left) != len(f.subjects):
                # the message was written for every subject: say which ones the other finding has
                moved = [s for s in f.subjects if s in taken]
                by = sorted({taken[s] for s in moved})
                verb = "is" if len(moved) == 1 else "are"
                f.message += f" Of these, {name_list(moved)} {verb} reported under {', '.join(by)}."
                f.subjects = left
        out.append(f)
    return out
