"""Integrations are thin and optional: graddoctor never imports a framework the user did not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")

CHECK = """
import sys
import graddoctor, graddoctor.integrations.pytest_plugin, graddoctor.assembly
graddoctor.assembly.standard_observers()
print(sorted(m for m in ("lightning", "pytorch_lightning", "transformers") if m in sys.modules))

import pytorch_lightning  # the user's flavour of Lightning
from graddoctor.integrations.lightning import GradDoctorCallback
print(isinstance(GradDoctorCallback(), pytorch_lightning.Callback))
"""


@pytest.mark.slow  # a fresh interpreter that imports torch and Lightning: ~5 s of CPU
def test_no_framework_is_imported_and_the_callback_follows_the_users_lightning():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=SRC), check=True).stdout
    assert out.split() == ["[]", "True"]
