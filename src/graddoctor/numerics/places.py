"""Where a numerics finding points: the loss line, the first NaN/Inf op, related lines."""

from __future__ import annotations

from graddoctor.finding import Related
from graddoctor.internal import known_models
from graddoctor.locate import Location


def bad_grad_first(stats) -> bool:
    """Gradients went non-finite before the loss did (GD302 rather than GD301)."""
    return stats.first_bad_grad is not None and (
        stats.first_bad_loss is None or stats.first_bad_grad[0] < stats.first_bad_loss[0])


def loss_place(stats, backward: Location) -> tuple[Location, list[Related]]:
    """The line that computed the loss (known from deep mode), else the backward line."""
    loss = stats.loss_line(backward)
    if loss is None or not loss.file or (loss.file, loss.line) == (backward.file, backward.line):
        return backward, []
    return loss, related(backward, "backward() is called on it here")


def with_origin(stats, at: Location, found: list[Related]) -> tuple[Location, list[Related], str]:
    """Name the forward op that made the first NaN/Inf, when the escalated deep step found it.

    That op is the line to fix (a log of 0, a division by 0), so the message names it and it
    comes first among the related lines. The finding itself stays where SPEC puts it (the
    loss line for GD301, the backward line for GD302): tools and tests outside key on that
    location, and the origin is found a step later, not on the step the finding reports.
    """
    origin = stats.session.consult(stats.deep, lambda deep: deep.nan_origin(), None)
    seen = [bad[0] for bad in (stats.first_bad_loss, stats.first_bad_grad) if bad is not None]
    if origin is not None and seen and origin.step < min(seen):
        origin = None  # made steps before any NaN/Inf reached a loss or gradient: not this one's origin
    diverged = divergence(stats)
    if origin is None or origin.location is None or not origin.location.file:
        return at, found, diverged
    shown = origin.location.shown()
    if diverged:
        # The updates blew the weights up; the op that overflowed first only shows where.
        first = Related(shown["file"], shown["line"], f"first NaN/Inf of the forward pass appeared here (`{origin.op}`)")
        return at, found + [first], diverged
    made = (f" In optimizer step {origin.step}, the first NaN/Inf ({origin.value}) of the forward pass was made "
            f"by `{origin.op}` at {shown['file']}:{shown['line']}{origin.called_from()}, from finite inputs: "
            "fix it there.")
    if (at.file, at.line) == (origin.location.file, origin.location.line):
        return at, found, made
    first = Related(shown["file"], shown["line"], f"first NaN/Inf made here by `{origin.op}`")
    return at, [first] + [r for r in found if (r.file, r.line) != (first.file, first.line)], made


def divergence(stats) -> str:
    """The run's own evidence that its updates diverged before the first NaN/Inf, in words ("" if none).

    Gradients that grew by orders of magnitude over the run's first steps, or steps that changed
    the weights by more than their own size: the learning rate explains the NaN, not an op.
    """
    first = [n for n in stats.norms_first if n > 0]
    grew = bool(first) and stats.worst_absolute >= stats.options.explode_growth * min(first)
    tracks = [t for t in stats.optimizers.values() if t.ratios]
    large = [t for t in tracks if sorted(r for r, _ in t.ratios)[len(t.ratios) // 2] > stats.options.ratio_high]
    if not grew and not large:
        return ""
    lrs = sorted({f"{t.max_lr:g}" for t in (large or tracks)})
    lr = f"the learning rate ({', '.join(lrs)})" if lrs else "the learning rate"
    why = (f"the gradient norm grew from {min(first):.3g} to {stats.worst_absolute:.3g} in the steps before it"
           if grew else "each step changed the weights by more than their own size in the steps before it")
    return (f" The updates diverged: {why}, so {lr} is the cause to fix first (lower it, or clip the gradient "
            "norm); the NaN/Inf is its consequence, not an op's.")


def divergence_hint(stats) -> str | None:
    """The fix when the updates diverged (see `divergence`), else None: the rule's own fix."""
    if not divergence(stats):
        return None
    return ("Lower the learning rate (by 10x to start), or clip the gradient norm between backward() and "
            "step() (`torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)`); then check that the loss falls.")


def related(loc: Location, note: str) -> list[Related]:
    if not loc.file:
        return []
    shown = loc.shown()
    return [Related(shown["file"], shown["line"], note)]


def vanishing_layers(stats) -> list[int]:
    """Keys of the layers judged on 3 or more steps whose gradients vanished on at least half of
    them, and faded along depth to get there.

    Embedding tables are left out: only the rows of the batch's tokens get a gradient, so
    their per-element RMS is diluted by the vocabulary size (a 5000-word table measured
    5e-3 of the reference in a healthy transformer), which says nothing about depth.
    A small layer is vanishing only when a layer between it and the loss is not small:
    a branch small all the way up to its loss (a loss term weighted 0.0005 on purpose,
    a capsule net's reconstruction decoder) gets small gradients from its loss's weight.
    """
    low = [k for k, t in stats.layers.items() if t.judged >= 3 and t.vanishing * 2 >= t.judged]
    if not low:
        return []
    from torch import nn

    tables = {id(m) for model in known_models(stats.session).values() for m in model.modules()
              if isinstance(m, (nn.Embedding, nn.EmbeddingBag))}
    graphs = [series.graph.above for series in stats.loss_series.series.values()]
    small = set(low)
    return [k for k in low if k not in tables and _faded_along_depth(k, small, graphs)]


def slow_updates(stats, keys: list[int]) -> tuple[list[int], dict]:
    """Which of the layers `keys` (small gradients) were also barely moved by their optimizer, and the evidence.

    A small gradient harms only through the step it makes. Measured: each layer's update/weight ratio
    relative to the upper-quartile layer's on the same step (median over the measured steps); below
    `slow_update_ratio` the layer barely moves. A layer whose updates were not measured is judged by its
    optimizer: one that rescales each element (Adam, RMSprop, Adagrad...) moves it like the rest, plain
    SGD moves it in proportion to its gradient.
    """
    from graddoctor.numerics.optimizers import RESCALING

    kinds: dict[int, set[str]] = {}
    for track_key, layout in stats._layouts.items():
        kind = stats.optimizers[track_key].kind if track_key in stats.optimizers else ""
        for key in layout.layer_keys:
            kinds.setdefault(key, set()).add(kind)
    slow, relative, rescaled = [], {}, set()
    for key in keys:
        measured = sorted(stats.layers[key].update_relative)
        optimizers = kinds.get(key, set())
        if optimizers and optimizers <= RESCALING:
            rescaled.update(optimizers)
        if len(measured) >= 2:
            median = measured[len(measured) // 2]
            relative[stats.layer_name(key)] = median
            if median < stats.options.slow_update_ratio:
                slow.append(key)
        elif not (optimizers and optimizers <= RESCALING):
            slow.append(key)
    evidence = {"update_vs_others": relative, "slow_update_ratio": stats.options.slow_update_ratio,
                "optimizers": sorted({k for key in keys for k in kinds.get(key, set()) if k}),
                "rescaling": sorted(rescaled)}
    return slow, evidence


def _faded_along_depth(layer: int, small: set, graphs: list[dict]) -> bool:
    """Whether some loss graph puts a layer that is not small between `layer` and the loss.

    A layer that no walked graph placed (a graph larger than the walk) is judged as before,
    by its size alone.
    """
    placed = False
    for above in graphs:
        if layer not in above:
            continue
        placed = True
        seen, k = {layer}, above[layer]
        while k is not None and k not in seen:
            if k not in small:
                return True
            seen.add(k)
            k = above.get(k)
    return not placed


def loop_saw(stats, code: str) -> bool:
    """Whether the loop audit reported `code`."""
    return code in stats.session.consult(stats.loop, lambda loop: loop.codes_seen(), set())
