"""The loss of a run per backward() line, as the numerics already read it once per optimizer step (no extra reads).

`--verify` compares the edited program's loss with the original's at the same backward line,
made by the same statement: an edit that changes what is backpropagated is not judged by the
new quantity's curve.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class LineLoss:
    """One backward line's loss series: the first and last windows the numerics keep."""

    file: str | None
    line: int | None
    count: int  # optimizer steps with a finite loss from this line
    first: list[float] = field(default_factory=list)
    last: list[float] = field(default_factory=list)
    made: tuple[str, int] | None = None  # the user line that made the loss (deep mode), when known
    first_sizes: list = field(default_factory=list)  # batch size of each value (None: not known)
    last_sizes: list = field(default_factory=list)

    def curve(self) -> Curve:
        """(step, loss); the points between the two windows are not known, and the step numbers say so."""
        points = Curve((i + 1, v) for i, v in enumerate(self.first))
        points.sizes.update((i + 1, n) for i, n in enumerate(self.first_sizes))
        start = self.count - len(self.last) + 1
        points += [(start + i, v) for i, v in enumerate(self.last) if start + i > len(self.first)]
        points.sizes.update((start + i, n) for i, n in enumerate(self.last_sizes) if start + i > len(self.first))
        return points

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "count": self.count, "first": self.first,
                "last": self.last, "made": list(self.made) if self.made else None,
                "first_sizes": self.first_sizes, "last_sizes": self.last_sizes}

    @classmethod
    def from_json(cls, data: dict) -> LineLoss:
        made = data.get("made")
        return cls(data["file"], data["line"], int(data["count"]), [float(v) for v in data["first"]],
                   [float(v) for v in data["last"]], (made[0], int(made[1])) if made else None,
                   list(data.get("first_sizes") or []), list(data.get("last_sizes") or []))


class Curve(list):
    """(step, loss) points, and `sizes`: the batch size of each step where the loss's graph told it."""

    def __init__(self, points=()) -> None:
        super().__init__(points)
        self.sizes: dict[int, int | None] = {}

    def even(self) -> tuple[list[tuple[int, float]], int | None]:
        """The points of the batch size most steps had, and that size, when some steps had another (an
        epoch's short last batch): one step's loss depends on its batch, so like is compared with like.
        All points and None otherwise."""
        from graddoctor.numerics.batch_size import typical

        if len(self.sizes) != len(self):
            return list(self), None
        size = typical([self.sizes[s] for s, _ in self])
        return (list(self), None) if size is None else ([(s, v) for s, v in self if self.sizes[s] == size], size)


def line_losses(session) -> list[LineLoss]:
    """Every backward line's series of the run, the one with the most optimizer steps first."""
    from graddoctor.locate import display_path
    from graddoctor.numerics.layers import LayerStats

    stats = next((o for o in session.observers if isinstance(o, LayerStats)), None)
    if stats is None:
        return []
    record = stats.record
    out = []
    for series in record.loss_series.series.values():
        made = record.loss_lines.get((series.where.file, series.where.line))
        # Shown as findings show them: the edited copy's files under their real names, both runs alike.
        out.append(LineLoss(display_path(series.where.file), series.where.line, series.count, list(series.first),
                            list(series.last), (display_path(made.file), made.line) if made and made.file else None,
                            list(series.first_sizes), list(series.last_sizes)))
    return sorted(out, key=lambda s: -s.count)


def loss_curve(session) -> Curve:
    """(step, loss) of the run's main loss series: the backward line with the most optimizer steps."""
    lines = line_losses(session)
    return lines[0].curve() if lines else Curve()


def ends(curve: list[tuple[int, float]]) -> list[float] | None:
    """[first, last] loss of a curve, as the JSON `loss_before`/`loss_after` carry them."""
    return [round(curve[0][1], 6), round(curve[-1][1], 6)] if curve else None
