"""GD113: checkpoint without reentry: `use_reentrant=False` on the `checkpoint(...)` /
`checkpoint_sequential(...)` call the finding names (set when it says True, added when absent), and
`gradient_checkpointing_kwargs={"use_reentrant": False}` on a Hugging Face
`gradient_checkpointing_enable()` that passes none. Non-reentrant checkpointing gives the same
values and gradients and does not need an input that requires grad. A call whose `**kwargs` may
already set it gets no edit."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, with_keyword

CODE = "GD113"


def edit(finding: Finding, src: Source) -> Change | None:
    for name in ("checkpoint", "checkpoint_sequential"):
        calls = src.calls_at(finding.line, name)
        if len(calls) == 1:
            replacement = with_keyword(calls[0], "use_reentrant", "False")
            return Change(f"checkpoint without reentry: `{name}(..., use_reentrant=False)`",
                          replacement) if replacement else None
    enabling = src.calls_at(finding.line, "gradient_checkpointing_enable")
    if len(enabling) == 1 and not any(a.keyword is not None and a.keyword.value == "gradient_checkpointing_kwargs"
                                      for a in enabling[0].args):
        replacement = with_keyword(enabling[0], "gradient_checkpointing_kwargs", '{"use_reentrant": False}')
        return Change("enable gradient checkpointing without reentry", replacement) if replacement else None
    return None
