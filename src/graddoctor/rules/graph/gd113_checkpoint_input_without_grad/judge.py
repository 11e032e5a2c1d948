"""GD113 checkpoint-input-without-grad, at runtime: a reentrant checkpoint cut its stage off.

Deep mode saw the stage's ops run inside `CheckpointFunction.forward` (torch's reentrant
checkpoint) while none of the checkpoint's tensor inputs required grad; the cut is one
per `checkpoint(...)` line (provenance/trackers/cuts.py), whatever the layers inside.
"""

from __future__ import annotations

from graddoctor.finding import Finding, Related
from graddoctor.rules import make


def checkpoint_without_grad(subjects: list[str], phrase: str, cut, back: list[Related], step: int | None,
                            related: list[Related] | None) -> Finding:
    """The parameters `subjects` ("all of `blocks.0`", said by `phrase`) ran in the stage of a
    reentrant checkpoint (`cut`) whose inputs none require grad."""
    return make(
        "GD113",
        f"{phrase} received no gradient: they run inside `checkpoint(..., use_reentrant=True)` at "
        f"{cut.location}, and none of the checkpoint's inputs requires grad (frozen embeddings, or the "
        "output of an earlier such checkpoint). A reentrant checkpoint then returns an output without "
        "history, so backward never recomputes the stage and their .grad stays None "
        "(torch warns: \"None of the inputs have requires_grad=True. Gradients will be None\").",
        hint=("Pass `use_reentrant=False` to `checkpoint(...)` (for Hugging Face models: "
              "`model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={\"use_reentrant\": False})`), "
              "or give the checkpoint an input that requires grad; for PEFT/LoRA models with frozen "
              "embeddings call `model.enable_input_require_grads()`."),
        subjects=subjects, step=step, related=back + list(related or []),
        evidence={"construct": "checkpoint(use_reentrant=True)", "inputs_requiring_grad": 0,
                  "calls": cut.count},
        **cut.location.shown(),
    )
