"""The rules judged on what backward passes reached: one module per code.

`graph/checks.py:check_reach` calls them in catalogue order on the leaves the
observed backward passes reached (or, for `diagnose()`, one backward pass).
"""

from __future__ import annotations

from graddoctor.graph.rules.gd104_parameter_without_gradient import grad_is_none_here, without_gradient
from graddoctor.graph.rules.gd105_unregistered_parameters import unregistered_parameters
from graddoctor.graph.rules.gd106_parameter_not_in_optimizer import parameters_not_in_optimizer
from graddoctor.graph.rules.gd210_frozen_in_optimizer import frozen_in_optimizer

__all__ = [
    "frozen_in_optimizer", "grad_is_none_here", "parameters_not_in_optimizer", "unregistered_parameters",
    "without_gradient",
]
