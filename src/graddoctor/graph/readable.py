"""Whether a tensor's values may be read by graddoctor: the one check before any read.

Reading a tensor's elements (a NaN check, a norm, a copy) is only safe on a plain dense
tensor whose storage holds them. FSDP frees and re-allocates parameter storage
(`untyped_storage().resize_(0)`) while the tensor keeps its shape: reading it then
touches freed memory and the process dies with SIGSEGV. Meta tensors have no values,
fake and functional tensors (torch.compile, torch.func) and tensor subclasses run code
of their own on every op (a read could change what the user's program prints or does),
sparse, nested, quantized and mkldnn tensors lack the kernels. Such tensors are skipped:
a check left undone is a finding missed, never the user's run broken.
"""

from __future__ import annotations

import torch

Tensor = torch.Tensor
_PLAIN_FUNCTION = (torch._C._disabled_torch_function_impl, Tensor.__torch_function__.__func__)
_PLAIN_DISPATCH = torch._C._disabled_torch_dispatch_impl
_functorch = getattr(torch._C, "_functorch", None)
_is_wrapped = getattr(_functorch, "is_functorch_wrapped_tensor", None)
_is_functional = getattr(torch, "_is_functional_tensor", None)


_plain_types: dict[type, bool] = {Tensor: True, torch.nn.Parameter: True}  # a class's answer never changes


def _plain_type(cls: type) -> bool:
    """Tensor, Parameter, Buffer and subclasses that override neither torch hook."""
    found = _plain_types.get(cls)
    if found is None:
        function = getattr(cls.__torch_function__, "__func__", cls.__torch_function__)
        found = function in _PLAIN_FUNCTION and cls.__torch_dispatch__ is _PLAIN_DISPATCH
        if len(_plain_types) < 256:  # classes made at run time: keep memory flat
            _plain_types[cls] = found
    return found


def has_values(t: object) -> bool:
    """Whether `t` is a tensor whose elements can be read without running anyone's code and
    without touching freed memory (False also for a tensor with no elements)."""
    # Called on the hot path (the loss of every backward, every gradient and weight of a measured
    # step): no torch.device object is made, a contiguous view's extent is its element count, the
    # class's answer is a dictionary read, and the cheapest tests come first.
    if not isinstance(t, Tensor):
        return False
    plain = _plain_types.get(type(t))
    if not (plain or (plain is None and _plain_type(type(t)))):
        return False
    if t.layout is not _STRIDED or t.is_nested or t.is_quantized or t.is_meta:
        return False
    if not (t.is_cpu or t.is_cuda or t.is_xpu or t.is_mps):
        return False
    if (_is_wrapped is not None and _is_wrapped(t)) or (_is_functional is not None and _is_functional(t)):
        return False
    numel = t.numel()
    if numel == 0:
        return False
    try:
        storage = t.untyped_storage()
    except (RuntimeError, NotImplementedError):  # a tensor without storage (torch raises for those)
        return False
    # The last element the tensor's view reaches must lie inside its storage: a storage
    # freed (resized to 0) or shrunk under it is not read.
    if t.is_contiguous():
        span = numel - 1
    else:
        span = sum((size - 1) * abs(stride) for size, stride in zip(t.shape, t.stride()))
    return storage.data_ptr() != 0 and storage.nbytes() >= (t.storage_offset() + span + 1) * t.element_size()


_STRIDED = torch.strided


def all_have_values(tensors) -> bool:
    """Whether every one of `tensors` has_values (a measured step's gradients and weights: one call and
    a plain loop, not a generator resumed per tensor)."""
    for t in tensors:
        if not has_values(t):
            return False
    return True


def readable(tensors) -> list[Tensor]:
    """The tensors of `tensors` whose values can be read (has_values)."""
    return [t for t in tensors if has_values(t)]
