"""The PIL/tensor transforms the example scripts use, with torchvision's meaning."""

from __future__ import annotations

import math
import numbers
import random
from typing import Any, Callable, Sequence

import numpy as np
import torch
from PIL import Image

from . import functional_stub as F

__all__ = ["Compose", "ToTensor", "PILToTensor", "ToPILImage", "Normalize", "Resize", "CenterCrop", "RandomCrop",
           "RandomResizedCrop", "RandomHorizontalFlip", "Lambda", "Grayscale", "Pad"]


class Compose:
    def __init__(self, transforms: Sequence[Callable]) -> None:
        self.transforms = transforms

    def __call__(self, img: Any) -> Any:
        for t in self.transforms:
            img = t(img)
        return img


class ToTensor:
    def __call__(self, pic: Any) -> torch.Tensor:
        return F.to_tensor(pic)


class PILToTensor:
    def __call__(self, pic: Image.Image) -> torch.Tensor:
        arr = np.array(pic, copy=True)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        return torch.from_numpy(arr).permute(2, 0, 1).contiguous()


class ToPILImage:
    def __init__(self, mode: Any = None) -> None:
        self.mode = mode

    def __call__(self, pic: Any) -> Image.Image:
        return F.to_pil_image(pic, self.mode)


class Normalize(torch.nn.Module):
    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        super().__init__()
        self.mean, self.std, self.inplace = mean, std, inplace

    def forward(self, tensor: torch.Tensor) -> torch.Tensor:
        if not self.inplace:
            tensor = tensor.clone()
        mean = torch.as_tensor(self.mean, dtype=tensor.dtype).view(-1, 1, 1)
        std = torch.as_tensor(self.std, dtype=tensor.dtype).view(-1, 1, 1)
        return tensor.sub_(mean).div_(std)


class Resize(torch.nn.Module):
    def __init__(self, size: Any, interpolation: Any = Image.BILINEAR, **_: Any) -> None:
        super().__init__()
        self.size = size
        self.interpolation = interpolation

    def forward(self, img: Any) -> Any:
        return F.resize(img, self.size, self.interpolation)


class CenterCrop(torch.nn.Module):
    def __init__(self, size: Any) -> None:
        super().__init__()
        self.size = (size, size) if isinstance(size, numbers.Number) else tuple(size)

    def forward(self, img: Any) -> Any:
        w, h = F.image_size(img)
        th, tw = self.size
        top, left = int(round((h - th) / 2.0)), int(round((w - tw) / 2.0))
        return F.crop(img, top, left, th, tw)


class RandomCrop(CenterCrop):
    def __init__(self, size: Any, padding: Any = None, **_: Any) -> None:
        super().__init__(size)

    def forward(self, img: Any) -> Any:
        w, h = F.image_size(img)
        th, tw = self.size
        top = int(torch.randint(0, h - th + 1, (1,)))
        left = int(torch.randint(0, w - tw + 1, (1,)))
        return F.crop(img, top, left, th, tw)


class RandomResizedCrop(torch.nn.Module):
    def __init__(self, size: Any, scale: tuple = (0.08, 1.0), ratio: tuple = (3 / 4, 4 / 3), **_: Any) -> None:
        super().__init__()
        self.size = (size, size) if isinstance(size, numbers.Number) else tuple(size)
        self.scale, self.ratio = scale, ratio

    def forward(self, img: Any) -> Any:
        w, h = F.image_size(img)
        area = h * w
        log_ratio = torch.log(torch.tensor(self.ratio))
        for _ in range(10):
            target_area = area * torch.empty(1).uniform_(self.scale[0], self.scale[1]).item()
            aspect = math.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1]).item())
            cw, ch = int(round(math.sqrt(target_area * aspect))), int(round(math.sqrt(target_area / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                top = int(torch.randint(0, h - ch + 1, size=(1,)))
                left = int(torch.randint(0, w - cw + 1, size=(1,)))
                return F.resize(F.crop(img, top, left, ch, cw), self.size, Image.BILINEAR)
        return F.resize(img, self.size, Image.BILINEAR)


class RandomHorizontalFlip(torch.nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = p

    def forward(self, img: Any) -> Any:
        if torch.rand(1) < self.p:
            if isinstance(img, Image.Image):
                return img.transpose(Image.FLIP_LEFT_RIGHT)
            return img.flip(-1)
        return img


class Grayscale(torch.nn.Module):
    def __init__(self, num_output_channels: int = 1) -> None:
        super().__init__()
        self.n = num_output_channels

    def forward(self, img: Image.Image) -> Image.Image:
        img = img.convert("L")
        return img if self.n == 1 else Image.merge("RGB", [img, img, img])


class Pad(torch.nn.Module):
    """Constant padding on every side (an int), left/right and top/bottom (2), or each side (4)."""

    def __init__(self, padding: Any, fill: int = 0, padding_mode: str = "constant") -> None:
        super().__init__()
        if padding_mode != "constant":
            raise NotImplementedError(f"the stand-in Pad has no padding_mode={padding_mode!r}")
        pad = [padding] * 4 if isinstance(padding, numbers.Number) else list(padding)
        if len(pad) == 2:
            pad = [pad[0], pad[1], pad[0], pad[1]]
        self.left, self.top, self.right, self.bottom = pad
        self.fill = fill

    def forward(self, img: Any) -> Any:
        if isinstance(img, Image.Image):
            w, h = img.size
            out = Image.new(img.mode, (w + self.left + self.right, h + self.top + self.bottom), self.fill)
            out.paste(img, (self.left, self.top))
            return out
        return torch.nn.functional.pad(img, (self.left, self.right, self.top, self.bottom), value=float(self.fill))


class Lambda:
    def __init__(self, lambd: Callable) -> None:
        self.lambd = lambd

    def __call__(self, img: Any) -> Any:
        return self.lambd(img)
