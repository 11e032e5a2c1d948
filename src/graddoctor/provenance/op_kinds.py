"""What a torch function is to deep mode's recorder, decided once per function object.

The recorder's `__torch_function__` runs for every op: it looks the function up in
`KINDS` (one dictionary read) and calls `classify` only the first time it meets one.
Kinds are small ints compared by identity on the hot path.
"""

from __future__ import annotations

import torch

from graddoctor.provenance import rnn_steps

(PLAIN, INPLACE, NUMBER, DETACH, DATA_GET, DATA_SET, SET_GRAD, FACTORY, ATTRIBUTE, STEP_FN, BOUNDED,
 REQUIRES_GRAD, SHAPE_ONLY, RNN, SELECT) = range(15)
_NUMBER_OPS = {"item", "tolist", "numpy", "__float__", "__int__", "__index__"}
_FACTORIES = {"tensor", "as_tensor", "asarray", "from_numpy", "Tensor"}
# Take only the shape, dtype and device of their tensor argument, never its values: a result
# that does not require grad cuts no path (`weight.new_zeros(...)` for an RNN's first state).
_SHAPE_ONLY_OPS = {"new_zeros", "new_ones", "new_empty", "new_full", "new_empty_strided", "zeros_like",
                   "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like"}
_INPLACE_DUNDERS = {"__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
                    "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__"}
_NOT_INPLACE = {"requires_grad_", "retain_grad_", "share_memory_", "detach_", "record_stream_", "_fix_weakref"}
_DATA = torch.Tensor.data
# Ops whose local derivative is zero: everywhere (step functions), or wherever the input
# lies outside the bounds (a clamp at its bound, a dead ReLU). What GD111 names as the cause.
_STEP_FUNCTIONS = {"round", "sign", "floor", "ceil", "trunc", "fix"}
_BOUNDED_OPS = {"relu", "relu6", "hardtanh", "clamp", "clip", "clamp_min", "clamp_max", "threshold"}

KINDS: dict = {}  # function -> its kind, filled by the recorder as it meets them


def classify(func) -> int:
    """The kind of a torch function (one of the constants above)."""
    owner = getattr(func, "__self__", None)
    if owner is _DATA:
        return DATA_GET if getattr(func, "__name__", "") == "__get__" else DATA_SET
    if getattr(func, "__name__", "") == "requires_grad_" or (
            getattr(func, "__name__", "") == "__set__" and getattr(owner, "__name__", "") == "requires_grad"):
        return REQUIRES_GRAD  # `requires_grad_(...)` and `t.requires_grad = ...`
    if getattr(func, "__name__", "") in ("__get__", "__set__", "__delete__"):
        return ATTRIBUTE  # .grad, .shape, .requires_grad...: reading an attribute cuts nothing
    if func is torch._C._set_grad_enabled:
        return SET_GRAD
    name = getattr(func, "__name__", "")
    if name in _NUMBER_OPS:
        return NUMBER
    if name in ("detach", "detach_"):
        return DETACH
    if name in _FACTORIES:
        return FACTORY
    if name in _SHAPE_ONLY_OPS:
        return SHAPE_ONLY
    if name in rnn_steps.RNN_OPS:
        return RNN
    if name in rnn_steps.SELECT_OPS:
        return SELECT
    if name in _INPLACE_DUNDERS or (name.endswith("_") and not name.endswith("__") and name not in _NOT_INPLACE):
        return INPLACE
    if name in _STEP_FUNCTIONS:
        return STEP_FN
    if name in _BOUNDED_OPS:
        return BOUNDED
    return PLAIN
