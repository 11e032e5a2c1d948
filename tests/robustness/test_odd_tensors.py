"""Odd tensor kinds and storage tricks run under graddoctor exactly as under python (issue 30).

Each program is a small real training script: FSDP-style freeing and re-allocating of
parameter storage (which crashed the recorder with SIGSEGV), meta-device init, torch.func
per-sample gradients, sparse gradients, nested tensors, a tensor subclass that counts the
ops run on it (a read of ours would change its count), DTensor on a one-process gloo mesh.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .as_python import assert_as_python

PROGRAMS = Path(__file__).parent / "programs"
ODD = ["storage_freed_and_reallocated.py", "meta_device_init.py", "func_transforms.py", "sparse_embeddings.py",
       "nested_sequences.py", "tensor_subclass.py", "dtensor_one_rank.py"]


@pytest.mark.slow  # three subprocesses that train a tiny model each
@pytest.mark.parametrize("name", ODD)
def test_odd_tensors_run_as_under_python(name):
    assert_as_python(PROGRAMS / name)
