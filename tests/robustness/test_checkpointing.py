"""Deep mode is transparent to activation checkpointing (issue 30).

Non-reentrant checkpointing compares the tensors saved by the original forward with
those saved by its recomputation in backward: an op of ours recorded in between (deep
mode's NaN check on a result that requires grad) made `graddoctor run` and `fix` raise
CheckpointError ("12 vs 9 saved tensors") on correct programs. Each program prints its
loss and a sum of its weights at full precision: the same digits mean the same training.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .as_python import assert_as_python

PROGRAMS = Path(__file__).parent / "programs"
CHECKPOINTING = ["checkpoint_tied_gpt.py", "checkpoint_reentrant_and_sequential.py", "hf_gpt2_checkpointing.py"]


@pytest.mark.slow  # three subprocesses that train a tiny transformer each
@pytest.mark.parametrize("name", CHECKPOINTING)
def test_checkpointed_training_runs_as_under_python(name):
    if name.startswith("hf_"):
        pytest.importorskip("transformers")
    assert_as_python(PROGRAMS / name)
