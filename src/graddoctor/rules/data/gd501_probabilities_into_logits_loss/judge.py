"""GD501: a loss that applies its own softmax/sigmoid, given values that already went through one.

Measured per checked call: the input's minimum and maximum and, for
`cross_entropy` / `nll_loss`, how far the class sums are from 1. Rows that are
non-negative and sum to 1 are probabilities, which logits never are by
chance. `binary_cross_entropy_with_logits` inputs all in [0, 1] could be small
logits, so that needs the graph to show a sigmoid/softmax right before the
loss, or the same picture on every check of that loss function in the run (at
every line: a GAN's discriminator puts the fakes' logits below 0 at another line,
while the real samples' may all lie in [0, 1] for a while), on many checks of a
large batch. What was measured is kept in the finding's `evidence`.
"""

from __future__ import annotations

import torch

from graddoctor.finding import Finding, Related
from graddoctor.lossdata.calls import LossCall, shape_text
from graddoctor.rules import make

WHAT = {"cross_entropy": "cross_entropy (CrossEntropyLoss)", "nll_loss": "nll_loss (NLLLoss)",
        "binary_cross_entropy_with_logits": "binary_cross_entropy_with_logits (BCEWithLogitsLoss)"}
_SUM_TOLERANCE = 1e-3
_LOG_PROB_TOLERANCE = 1e-4  # log_softmax can round a hair above 0
_PERSISTENT_CHECKS = 10  # [0, 1] logits, without a sigmoid in sight, on this many checks of a large batch
_PERSISTENT_NUMEL = 32
# ... and still so after this many optimizer steps. A freshly initialised deep ReLU net can put every
# output in [0, 1] (tiny activations, a small positive bias) for its first checks; training against
# 0 targets soon pushes real logits below 0, while probabilities never leave [0, 1].
_PERSISTENT_STEPS = 100


class Probabilities:
    def __init__(self) -> None:
        self.found: dict[tuple, Finding] = {}
        self._unit_range: dict[tuple, int] = {}  # loss line -> checks with [0, 1] logits so far
        # loss lines whose [0, 1] logits persisted without a sigmoid in the graph: judged at the end, once
        # every check of the run is in (`_real_logits`)
        self._persistent: dict[tuple, Finding] = {}
        self._real_logits: set[str] = set()  # loss functions given values outside [0, 1] at any line

    def wants(self, call: LossCall) -> bool:
        return call.name in WHAT

    def measure(self, call: LossCall, x: torch.Tensor, target) -> list[torch.Tensor]:
        x = x.detach()
        out = [x.amin(), x.amax()]
        if call.name != "binary_cross_entropy_with_logits":
            dim = 1 if x.dim() > 1 else 0
            out.append((x.sum(dim) - 1).abs().amax())
        return out

    def take(self, call: LossCall, values: list[float]) -> None:
        low, high = values[0], values[1]
        if call.name == "binary_cross_entropy_with_logits":
            self._logits_in_unit_range(call, low, high)
            return
        classes = call.input_shape[1] if len(call.input_shape) > 1 else call.input_shape[0]
        rows_are_probabilities = low >= 0 and values[2] <= _SUM_TOLERANCE and classes >= 2
        evidence = {"min": low, "max": high, "row_sum_error": values[2], "classes": classes,
                    "squashed_by": call.squashed_by}
        if call.name == "cross_entropy" and rows_are_probabilities:
            self._report(call, f"`{WHAT[call.name]}` was given rows that are non-negative and sum to 1 (input of shape "
                         f"{shape_text(call.input_shape)}): probabilities, not logits. The loss applies its own softmax, so "
                         "it squashes them a second time: every class gets nearly the same share and the gradients "
                         "nearly vanish.", _fix(call, "softmax"), evidence)
        elif call.name == "nll_loss" and high > _LOG_PROB_TOLERANCE:
            what = "probabilities (rows that sum to 1)" if rows_are_probabilities else f"raw scores (up to {high:.3g})"
            self._report(call, f"`{WHAT[call.name]}` expects log-probabilities (all <= 0) and was given {what}, input of "
                         f"shape {shape_text(call.input_shape)}: it is minimised by making those values large, not by "
                         "predicting the right class.",
                         "Apply `log_softmax(dim=1)` to the logits before `nll_loss` (or give the logits to "
                         "`cross_entropy`, which does both).", evidence)

    def _logits_in_unit_range(self, call: LossCall, low: float, high: float) -> None:
        key = (call.where.file, call.where.line)
        if not (0.0 <= low and high <= 1.0):
            self._unit_range[key] = -(10**9)  # real logits seen at this line: never judged by persistence
            self._real_logits.add(call.name)
            return
        seen = self._unit_range[key] = self._unit_range.get(key, 0) + 1
        numel = 1
        for size in call.input_shape:
            numel *= size
        persistent = seen >= _PERSISTENT_CHECKS and numel >= _PERSISTENT_NUMEL and call.step > _PERSISTENT_STEPS
        if call.squashed_by is None and not persistent:
            return
        made = f" (made by a {call.squashed_by})" if call.squashed_by else ""
        evidence = {"min": low, "max": high, "squashed_by": call.squashed_by, "checks_in_unit_range": seen}
        self._report(call, f"`{WHAT[call.name]}` was given values that all lie in [0, 1]{made}, input of shape "
                     f"{shape_text(call.input_shape)}: probabilities, not logits. The loss applies its own sigmoid, so "
                     "its predictions never go below 0.5 and the gradients are small.", _fix(call, "sigmoid"),
                     evidence, persistent=call.squashed_by is None)

    def _report(self, call: LossCall, message: str, hint: str, evidence: dict, persistent: bool = False) -> None:
        key = (call.name, call.where.file, call.where.line)
        if key in self.found or key in self._persistent:
            return
        at = call.squashed_at or call.where
        related = []
        if call.squashed_at is not None:
            message += f" The {call.squashed_by} is applied at {call.squashed_at}."
            related.append(Related(call.where.shown()["file"], call.where.line, "the loss that gets its output"))
        elif call.squashed_by:
            message += f" The values come straight from a {call.squashed_by}."
        # The loss that got the values: its edit differs (drop the softmax for cross_entropy, log_softmax for nll_loss).
        evidence = {**evidence, "loss": call.name, "squashed_by": call.squashed_by}
        found = make("GD501", message, hint=hint, related=related, step=call.step, evidence=evidence, **at.shown())
        (self._persistent if persistent else self.found)[key] = found

    def findings(self) -> list[Finding]:
        # still in [0, 1] at every later check of its line, and no line of that loss saw a real logit
        persisted = [f for (name, file, line), f in self._persistent.items()
                     if name not in self._real_logits and self._unit_range.get((file, line), 0) > 0]
        return list(self.found.values()) + persisted


def _fix(call: LossCall, kind: str) -> str:
    if kind == "softmax":
        return ("Give the loss the logits: remove the `softmax` before it (apply it only where you need "
                "probabilities, e.g. for prediction). If you need the softmax in the model, use `log_softmax` "
                "with `nll_loss` instead.")
    return ("Give the loss the logits: remove the `sigmoid` before it, or keep it and use "
            "`binary_cross_entropy` (BCELoss), which expects probabilities.")
