"""The report's per-layer table: one row per module that owns parameters, from the record."""

from __future__ import annotations

from graddoctor.numerics.layout import layer_names_now
from graddoctor.numerics.record import LayerRecord
from graddoctor.report.layers import LayerRow


def layer_rows(record: LayerRecord) -> list[LayerRow]:
    """One row per module that owns parameters (of the known models and optimizers)."""
    entries = layer_names_now(record.models())
    known = {key for key, _, _, _ in entries}
    counts: dict[int, int] = {}
    for layout in record.layouts():
        for i in layout.layer_of:
            key = layout.layer_keys[i]
            counts[key] = counts.get(key, 0) + 1
    entries += [(key, record.provisional.get(key, str(key)), n, None) for key, n in counts.items() if key not in known]
    rows: list[LayerRow] = []
    for key, name, n, kind in entries:
        track = record.layers.get(key)
        if key not in counts and not (track and track.has_grad):
            # held by no optimizer and never given a gradient: a frozen teacher, the template layer
            # nn.TransformerEncoder deep-copies. Not a "no gradient" problem, so no red row.
            continue
        rows.append(LayerRow(
            name=name,
            params=n,
            grad_norm=track.last if track else None,
            grad_norm_max=track.max if track and track.has_grad else None,
            update_ratio=track.ratio if track else None,
            has_grad=bool(track and track.has_grad),
            kind=kind,
            last_finite=track.last_finite if track else None,
            nonfinite_from=track.nonfinite_since if track else None,
        ))
    return rows
