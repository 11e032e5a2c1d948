"""GD506: tell the sequence layer its input is batch first: `batch_first=True` where the layer is built."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name, with_keyword

CODE = "GD506"

_LAYERS = ("RNN", "LSTM", "GRU", "MultiheadAttention", "Transformer", "TransformerEncoderLayer",
           "TransformerDecoderLayer")


def edit(finding: Finding, src: Source) -> Change | None:
    layers = [c for c in src.calls_at(finding.line) if callee_name(c) in _LAYERS]
    if len(layers) != 1:
        return None  # two layers built on one line: which one was fed batch-first is not guessed
    replacement = with_keyword(layers[0], "batch_first", "True")
    return Change(f"build the {callee_name(layers[0])} with `batch_first=True`", replacement) if replacement else None
