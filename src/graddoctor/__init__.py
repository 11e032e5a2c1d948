"""graddoctor: finds why a PyTorch model does not learn, and says where in your code.

Names are loaded on first use, so that `graddoctor lint` and `graddoctor
explain`, which need no torch, do not pay for importing it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from graddoctor._version import __version__

# name -> the module that defines it; `__all__` and the lazy loader below both read this table.
_EXPORTS = {
    "Finding": "graddoctor.finding",
    "GradDoctorError": "graddoctor.errors",
    "GradFlowMonitor": "graddoctor.numerics.monitor",
    "Report": "graddoctor.report.report",
    "Severity": "graddoctor.finding",
    "check_loss": "graddoctor.helpers",
    "diagnose": "graddoctor.observers.diagnose",
    "ensure_tensor_loss": "graddoctor.helpers",
    "explain": "graddoctor.explain.explainer",
    "safe_backward": "graddoctor.helpers",
    "train_one_epoch": "graddoctor.helpers",
    "verify_layer": "graddoctor.helpers",
    "watch": "graddoctor.watching",
}

# The public API, listed once: the table above (and the version).
__all__ = sorted([*_EXPORTS, "__version__"])


# `graddoctor.explain` is both a subpackage and a function: bind the function now
# (the package is torch-free), or importing the subpackage anywhere would shadow it.
from graddoctor.explain.explainer import explain  # noqa: E402


def load_ipython_extension(ipython) -> None:
    """`%load_ext graddoctor` in Jupyter/IPython: the `%%graddoctor` cell magic."""
    from graddoctor.integrations.notebook import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython) -> None:
    from graddoctor.integrations.notebook import unload_ipython_extension as unload

    unload(ipython)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graddoctor' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as exc:
        if exc.name != "torch":
            raise
        # lint, explain and rules need no torch, so graddoctor installs without it; what runs a model does.
        from graddoctor.exits import MissingPackage

        raise MissingPackage(f"graddoctor.{name} needs the 'torch' package, which is not installed: pip install torch",
                             name="torch") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from graddoctor.errors import GradDoctorError
    from graddoctor.explain.explainer import explain
    from graddoctor.finding import Finding, Severity
    from graddoctor.observers.diagnose import diagnose
    from graddoctor.helpers import check_loss, ensure_tensor_loss, safe_backward, train_one_epoch, verify_layer
    from graddoctor.numerics.monitor import GradFlowMonitor
    from graddoctor.report.report import Report
    from graddoctor.watching import watch
