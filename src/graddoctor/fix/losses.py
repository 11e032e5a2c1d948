"""The loss curve of a run, as the numerics already read it once per optimizer step (no extra reads)."""

from __future__ import annotations


def loss_curve(session) -> list[tuple[int, float]]:
    """(step, loss) of the run's main loss series: the backward line with the most optimizer steps.

    Only the first and last windows of a long run are kept by the numerics; the points
    between are not known, and the curve says so by its step numbers.
    """
    from graddoctor.numerics.layers import LayerStats

    stats = next((o for o in session.observers if isinstance(o, LayerStats)), None)
    if stats is None or not stats.record.loss_series.series:
        return []
    series = max(stats.record.loss_series.series.values(), key=lambda s: s.count)
    points = [(i + 1, v) for i, v in enumerate(series.first)]
    tail = list(series.last)
    start = series.count - len(tail) + 1
    points += [(start + i, v) for i, v in enumerate(tail) if start + i > len(series.first)]
    return points


def ends(curve: list[tuple[int, float]]) -> list[float] | None:
    """[first, last] loss of a curve, as the JSON `loss_before`/`loss_after` carry them."""
    return [round(curve[0][1], 6), round(curve[-1][1], 6)] if curve else None
