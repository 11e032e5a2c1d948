"""What the script itself printed: its loss and accuracy lines, read back to compare two runs.

The numbers a script prints are the ones its author watches. An edit that makes the printed
loss rise over the run (or the printed accuracy fall) while the original's did not has changed
the objective, whatever the backward line's series says: the issue's triplet case backpropagated
a similarity after its edit, which fell, while the triplet loss it printed rose 0.113 -> 0.499.
"""

from __future__ import annotations

import re
import sys

_NUMBER = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf"
# `loss 0.31`, `loss: 0.31`, `train_loss=0.31`, `val acc 91.2%`, `'loss': 0.31`
_METRIC = re.compile(r"(?P<label>[A-Za-z][A-Za-z_ ./-]{0,24}?)['\"]?\s*[:=]?\s*(?P<value>" + _NUMBER + r")(?![\w.])")
_RISE = 1.5  # the last window's median over the first's that counts as a rising loss
_KEEP = 1.2  # the original's own rise under which the edited run's rise is the edit's doing


class Tee:
    """Stands in for sys.stdout while the script runs: writes through and keeps what was written."""

    def __init__(self, stream):
        self._stream = stream
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)

    def text(self) -> str:
        return "".join(self.parts)


def capture() -> Tee:
    tee = Tee(sys.stdout)
    sys.stdout = tee
    return tee


def release(tee: Tee | None) -> None:
    if tee is not None and sys.stdout is tee:
        sys.stdout = tee._stream


def metrics(text: str) -> dict[str, list[float]]:
    """Per printed label that names a loss or an accuracy (`loss`, `val_loss`, `acc`), its values in order."""
    out: dict[str, list[float]] = {}
    for line in text.splitlines():
        for m in _METRIC.finditer(line):
            label = _label(m.group("label"))
            if label is not None:
                out.setdefault(label, []).append(float(m.group("value")))
    return out


def _label(raw: str) -> str | None:
    words = re.findall(r"[a-z]+", raw.lower())
    if not words or words[-1] not in ("loss", "acc", "accuracy"):
        return None
    return " ".join(words[-2:]) if len(words) > 1 and words[-2] in ("train", "val", "valid", "test", "eval") else words[-1]


def worse(before: dict[str, list[float]], after: dict[str, list[float]]) -> str | None:
    """A plain sentence when a loss the script printed in both runs rose over the edited run (or an
    accuracy fell, or a finite loss became nan/inf) where it did not in the original; else None."""
    for label, values in after.items():
        old = before.get(label)
        if not old or len(values) < 3:
            continue
        if all(_finite(v) for v in old) and not all(_finite(v) for v in values):
            return f"the {label} it prints became {_bad(values)}"
        a0, a1 = _ends(values)
        b0, b1 = _ends(old)
        if label.endswith("loss") and a1 > 0 and not (b0 > 0 and b1 > _KEEP * b0):
            # Rose over the edited run, or ended well above both where the original ended and where it began.
            if (a0 > 0 and a1 > _RISE * a0) or (b1 > 0 and a1 > _RISE * b1 and a1 > b0):
                return f"the {label} it prints went {a0:.4g} → {a1:.4g} (the original's went {b0:.4g} → {b1:.4g})"
        if label.endswith(("acc", "accuracy")) and a0 > 0 and a1 < a0 / _RISE and not (b1 < b0 / _KEEP):
            return f"the {label} it prints fell from {a0:.4g} to {a1:.4g} (the original's went {b0:.4g} → {b1:.4g})"
    return None


def _ends(values: list[float]) -> tuple[float, float]:
    """Medians of the first and last third (a single print is noise, a window is not)."""
    k = max(1, len(values) // 3)
    return _median(values[:k]), _median(values[-k:])


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else 0.5 * (ordered[n // 2 - 1] + ordered[n // 2])


def _finite(v: float) -> bool:
    return v == v and v not in (float("inf"), float("-inf"))


def _bad(values: list[float]) -> str:
    return "nan" if any(v != v for v in values) else "infinite"
