"""The console script named in pyproject.toml and `python -m graddoctor` reach the same main()."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_console_script_resolves_to_the_dispatcher():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, name = scripts["graddoctor"].partition(":")
    main = getattr(importlib.import_module(module), name)
    from graddoctor.cli.commands import main as dispatcher

    assert main is dispatcher
    assert main(["--version"]) == 0


def test_python_dash_m_graddoctor_runs_the_command_line():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    ran = subprocess.run([sys.executable, "-m", "graddoctor", "--version"], capture_output=True, text=True, env=env, timeout=60)
    from graddoctor._version import __version__

    assert (ran.returncode, ran.stdout) == (0, f"graddoctor {__version__}\n")
    ran = subprocess.run([sys.executable, "-m", "graddoctor", "nosuch"], capture_output=True, text=True, env=env, timeout=60)
    assert ran.returncode == 2 and "unknown command 'nosuch'" in ran.stderr
