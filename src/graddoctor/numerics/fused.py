"""The norm of every gradient in few kernels: the per-step reduction of LayerStats.

On CUDA `torch._foreach_norm` is one fused multi-tensor kernel. On CPU it is a
loop with one kernel per tensor, and on a model of many small layers those
kernel launches are what a step of graddoctor costs (24 x Linear + LayerNorm:
96 launches, ~3x the grouped form below). So on CPU the small gradients of the
same shape are stacked and reduced together (one copy of a few KB and one
kernel per shape); large ones, where the copy would cost more than the launch,
and shapes seen once still go through `_foreach_norm`. The result is one 1-D
float32 tensor, in the plan's order of positions.
"""

from __future__ import annotations

import torch

# Gradients up to this many elements are stacked with others of their shape (CPU only):
# the copy is then cheaper than a kernel launch of its own.
SMALL = 1 << 16


class NormPlan:
    """For one set of gradient positions: which are stacked together, which are reduced one by one.

    Made from the parameters, once: a gradient has its parameter's shape, dtype and
    device (autograd enforces it), so nothing is compared per step. A parameter whose
    shape changed later makes `torch.stack` raise, and the caller makes a new plan.
    """

    def __init__(self, positions: list[int], params: list[torch.Tensor]) -> None:
        groups: dict[tuple, list[int]] = {}
        single: list[int] = []
        for k, g in enumerate(params):
            if g.device.type == "cpu" and g.numel() <= SMALL and g.layout == torch.strided:
                groups.setdefault((tuple(g.shape), g.dtype), []).append(k)
            else:
                single.append(k)
        self.groups = [ks for ks in groups.values() if len(ks) > 1]
        single += [ks[0] for ks in groups.values() if len(ks) == 1]
        self.single = single
        order = [k for ks in self.groups for k in ks] + single
        self.given = positions  # the order the tensors are passed in
        self.positions = [positions[k] for k in order]  # the order of the results

    def norms(self, grads: list[torch.Tensor]) -> list[torch.Tensor]:
        """1-D float32 tensors whose concatenation is the norm of each gradient, in `positions` order."""
        out: list[torch.Tensor] = []
        for ks in self.groups:
            stacked = torch.stack([grads[k] for k in ks])
            out.append(torch.linalg.vector_norm(stacked.reshape(len(ks), -1), dim=1).float())
        if self.single:
            out.append(stack(list(torch._foreach_norm([grads[k] for k in self.single]))))
        return out


    def copy(self, tensors: list[torch.Tensor]) -> list[torch.Tensor]:
        """A copy of `tensors` (the weights before a step), one tensor per group, then the others."""
        out = [torch.stack([tensors[k] for k in ks]) for ks in self.groups]
        if self.single:
            out += torch._foreach_mul([tensors[k] for k in self.single], 1.0)
        return out

    def change_norms(self, before: list[torch.Tensor], tensors: list[torch.Tensor]) -> list[torch.Tensor]:
        """Norms of (tensors - before) then of before, each in `positions` order, as 1-D tensors."""
        delta, weight = [], []
        for ks, old in zip(self.groups, before):
            rows = old.reshape(len(ks), -1)
            now = torch.stack([tensors[k] for k in ks]).reshape(len(ks), -1)
            delta.append(torch.linalg.vector_norm(now - rows, dim=1).float())
            weight.append(torch.linalg.vector_norm(rows, dim=1).float())
        if self.single:
            old = before[len(self.groups):]
            now = [tensors[k] for k in self.single]
            delta.append(stack(list(torch._foreach_norm(torch._foreach_sub(now, old)))))
            weight.append(stack(list(torch._foreach_norm(old))))
        return delta + weight


def join(tensors: list[torch.Tensor]) -> torch.Tensor:
    """Concatenate 1-D results that may differ in dtype or device, as float32 on the first one's device."""
    return _float32(torch.cat, tensors)


def stack(tensors: list[torch.Tensor]) -> torch.Tensor:
    """Stack 0-d results that may differ in dtype (bf16 grads with fp32 ones) or device, as float32."""
    return _float32(torch.stack, tensors)


def _float32(combine, tensors: list[torch.Tensor]) -> torch.Tensor:
    try:
        out = combine(tensors)  # promotes mixed dtypes; fails only across devices
    except RuntimeError:
        device = tensors[0].device
        out = combine([t.to(device=device, dtype=torch.float32) for t in tensors])
    return out if out.dtype == torch.float32 else out.float()
