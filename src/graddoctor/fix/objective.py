"""Does the edited program still train what the original trained? The loss of the same backward() line,
made by the same statement, and the loss and accuracy the script prints.

Each check answers None (nothing against the edit) or one plain sentence saying what changed.
"""

from __future__ import annotations

from collections import deque

from graddoctor.fix.losses import LineLoss
from graddoctor.fix.printed import worse

_RISE_Z = 4.0  # the edited run's loss rose by this many standard errors of the window medians
_FLAT_Z = 2.0  # ... where the original's did not rise by this many


def same_line(before: list[LineLoss], after: list[LineLoss], maps: dict[str, dict[int, int]]) -> tuple[LineLoss | None, LineLoss | None]:
    """The original's main series and the edited run's series of the same backward line (None where absent)."""
    if not before:
        return None, None
    main = before[0]
    line = maps[main.file].get(main.line) if main.file in maps else main.line
    if line is None:
        return main, None
    return main, next((s for s in after if s.file == main.file and s.line == line), None)


def objective_changed(before: list[LineLoss], after: list[LineLoss], maps: dict[str, dict[int, int]],
                      printed_before: dict | None, printed_after: dict | None) -> str | None:
    main, edited = same_line(before, after, maps)
    if main is not None and main.file in maps and main.line not in maps[main.file]:
        main = None  # the edit rewrote the backward line itself: its series is judged by the prints only
    if main is not None:
        where = f"{main.file}:{main.line}"
        if edited is None:
            return f"the loss backpropagated at {where} is no longer trained (no optimizer step follows it)"
        if main.made and edited.made:
            made = (main.made[0], maps.get(main.made[0], {}).get(main.made[1]) if main.made[0] in maps else main.made[1])
            if made[1] is not None and made != edited.made:
                return (f"it backpropagates a different loss at {where}: made at {edited.made[0]}:{edited.made[1]}, "
                        f"not at {main.made[0]}:{main.made[1]} as before")
        rose = _rise(edited)
        if rose is not None and not _rises(main, _FLAT_Z):
            return f"the loss of {where} rose from {rose[0]:.4g} to {rose[1]:.4g} over the edited run"
    if printed_before and printed_after:
        return worse(printed_before, printed_after)
    return None


def _rise(series: LineLoss) -> tuple[float, float] | None:
    t = _trend(series)
    return (t.first, t.last) if t is not None and t.z > _RISE_Z and t.last > t.first else None


def _rises(series: LineLoss, z: float) -> bool:
    t = _trend(series)
    return t is not None and t.z > z


def _trend(series: LineLoss):
    from graddoctor.numerics.loss_series import WINDOW, GraphSummary, Series, trend

    return trend(Series(None, 0, GraphSummary(), list(series.first), deque(series.last, maxlen=WINDOW), series.count,
                        first_sizes=list(series.first_sizes), last_sizes=deque(series.last_sizes, maxlen=WINDOW)))
