"""The pip command that adds an optional extra, worded for how graddoctor was installed.

From a clone (`pip install -e .`, or `make` which does so) `pip install 'graddoctor[fix]'` would fetch
another copy from the package index instead of adding the extra to the clone: the command
must then name the clone's folder.
"""

from __future__ import annotations

from pathlib import Path


def install_command(extra: str) -> str:
    """`pip install 'graddoctor[extra]'`, or `pip install -e '<clone>[extra]'` when run from a clone."""
    package = Path(__file__).resolve().parent
    clone = package.parent.parent  # src/graddoctor -> the repository
    if package.parent.name == "src" and (clone / "pyproject.toml").is_file():
        where = "." if Path.cwd().resolve() == clone else str(clone)
        return f"pip install -e '{where}[{extra}]'"
    return f"pip install 'graddoctor[{extra}]'"
