"""Helpers shared by the stand-in transforms (PIL images and CHW tensors)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch
from PIL import Image


def image_size(img: Any) -> tuple:
    """(width, height), as PIL gives it."""
    if isinstance(img, Image.Image):
        return img.size
    return img.shape[-1], img.shape[-2]


def to_tensor(pic: Any) -> torch.Tensor:
    if isinstance(pic, np.ndarray):
        arr = pic if pic.ndim == 3 else pic[:, :, None]
        t = torch.from_numpy(arr.transpose(2, 0, 1).copy())
        return t.float().div(255) if t.dtype == torch.uint8 else t
    arr = np.array(pic, np.uint8, copy=True)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return torch.from_numpy(arr).permute(2, 0, 1).contiguous().float().div(255)


def to_pil_image(pic: Any, mode: Any = None) -> Image.Image:
    if isinstance(pic, Image.Image):
        return pic
    t = pic.detach()
    if t.is_floating_point():
        t = t.mul(255).clamp(0, 255).byte()
    arr = t.permute(1, 2, 0).numpy() if t.ndim == 3 else t.numpy()
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[:, :, 0]
    return Image.fromarray(arr, mode=mode)


def resize(img: Any, size: Any, interpolation: Any = Image.BILINEAR) -> Any:
    w, h = image_size(img)
    if isinstance(size, numbers.Number) or len(size) == 1:
        s = size if isinstance(size, numbers.Number) else size[0]
        if w <= h:
            ow, oh = s, int(s * h / w)
        else:
            oh, ow = s, int(s * w / h)
    else:
        oh, ow = size
    if isinstance(img, Image.Image):
        return img.resize((ow, oh), interpolation)
    return torch.nn.functional.interpolate(img.unsqueeze(0).float(), size=(oh, ow), mode="bilinear",
                                           align_corners=False).squeeze(0)


def crop(img: Any, top: int, left: int, height: int, width: int) -> Any:
    if isinstance(img, Image.Image):
        return img.crop((left, top, left + width, top + height))
    return img[..., top:top + height, left:left + width]
