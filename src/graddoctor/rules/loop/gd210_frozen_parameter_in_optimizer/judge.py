"""GD210 frozen-parameters-in-optimizer: an optimizer given parameters with requires_grad=False.

The fix keeps the user's optimizer class and arguments; when every parameter
is frozen it says what to unfreeze instead (an optimizer over nothing raises).
"""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.graph.naming import ModelIndex
from graddoctor.graph.optimizer_call import module_expression, trainable_only_call
from graddoctor.graph.phrases import name_list, plural
from graddoctor.rules import make
from graddoctor.session.registry import OptimizerRecord


def frozen_in_optimizer(index: ModelIndex, record: OptimizerRecord, step: int | None) -> list[Finding]:
    out: list[Finding] = []
    frozen = [p for p in record.params() if not p.requires_grad]
    if frozen:
        names = [index.name(p) for p in frozen]
        if len(frozen) == len(record.params()):
            # trainable-only would build an optimizer over nothing (torch raises): say what to unfreeze
            last = module_expression(index, frozen[-1])
            example = f" (for the last layer: `{last}.requires_grad_(True)`)" if last else ""
            hint = (f"Every parameter given to {record.label} is frozen, so it trains nothing. Unfreeze the "
                    f"layers that should learn before training{example}, "
                    "or drop this optimizer and its step() if nothing should train.")
        else:
            hint = f"Pass only trainable parameters: `{trainable_only_call(record.optimizer, record.created_at)}`."
        out.append(
            make(
                "GD210",
                f"{record.label} was given {plural(len(frozen), 'parameter')} with requires_grad=False "
                f"({name_list(names)}); it will skip them.",
                hint=hint,
                subjects=names,
                step=step,
                **record.created_at.shown(),
            )
        )
    return out
