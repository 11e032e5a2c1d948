"""make_grid and save_image, as the examples call them."""

from __future__ import annotations

import math
from typing import Any

import torch
from PIL import Image


def make_grid(tensor: Any, nrow: int = 8, padding: int = 2, normalize: bool = False, value_range: Any = None,
              scale_each: bool = False, pad_value: float = 0.0, **_: Any) -> torch.Tensor:
    if isinstance(tensor, list):
        tensor = torch.stack(tensor)
    tensor = tensor.detach()
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        tensor = tensor.unsqueeze(0) if tensor.size(0) in (1, 3) else tensor.unsqueeze(1)
    if tensor.size(1) == 1:
        tensor = torch.cat((tensor, tensor, tensor), 1)
    if normalize:
        tensor = tensor.clone()
        lo, hi = value_range if value_range is not None else (float(tensor.min()), float(tensor.max()))
        tensor.clamp_(min=lo, max=hi).sub_(lo).div_(max(hi - lo, 1e-5))
    n = tensor.size(0)
    xmaps = min(nrow, n)
    ymaps = int(math.ceil(float(n) / xmaps))
    h, w = tensor.size(2) + padding, tensor.size(3) + padding
    grid = tensor.new_full((3, h * ymaps + padding, w * xmaps + padding), pad_value)
    for k in range(n):
        y, x = divmod(k, xmaps)
        grid[:, y * h + padding:(y + 1) * h, x * w + padding:(x + 1) * w] = tensor[k]
    return grid


def save_image(tensor: Any, fp: Any, format: Any = None, **kwargs: Any) -> None:
    grid = make_grid(tensor, **kwargs)
    arr = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", torch.uint8).numpy()
    Image.fromarray(arr).save(fp, format=format)
