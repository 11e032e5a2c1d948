"""Measured numbers in JSON, which has no NaN or Infinity: non-finite ones are the strings "nan", "inf", "-inf".

A NaN run's norms and measured quantities are written as these strings (schema.json says
so), never as the bare `NaN` Python's json would emit, which no strict parser accepts.
"""

from __future__ import annotations

import math
from typing import Any

NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def number_out(value: Any) -> Any:
    """`value` as JSON can hold it: a non-finite float becomes its string; lists are converted item by item."""
    if isinstance(value, (list, tuple)):
        return [number_out(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def number_in(value: Any) -> Any:
    """The inverse of `number_out`."""
    if isinstance(value, list):
        return [number_in(v) for v in value]
    return NON_FINITE.get(value, value) if isinstance(value, str) else value
