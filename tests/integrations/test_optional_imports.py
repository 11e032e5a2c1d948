"""Integrations are thin and optional: graddoctor never imports a framework the user did not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[2] / "src")


def test_importing_graddoctor_and_its_pytest_plugin_imports_no_framework():
    code = (
        "import sys, graddoctor, graddoctor.integrations.pytest_plugin, graddoctor.session.standard\n"
        "graddoctor.session.standard.standard_observers()\n"
        "print(sorted(m for m in ('lightning', 'pytorch_lightning', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=SRC), check=True).stdout
    assert out.strip() == "[]"


def test_the_lightning_callback_follows_the_flavour_the_user_imported():
    code = (
        "import sys, pytorch_lightning\n"
        "from graddoctor.integrations.lightning import GradDoctorCallback\n"
        "print(isinstance(GradDoctorCallback(), pytorch_lightning.Callback))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=SRC), check=True).stdout
    assert out.strip() == "True"
