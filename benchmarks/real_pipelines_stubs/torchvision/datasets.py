"""Synthetic datasets with torchvision's signatures.

Each sample is a class prototype plus noise, made by a generator of its own
(never the global RNG, as reading files never touches it). Sizes are capped by
GD_BENCH_DATASET_LEN (train) and GD_BENCH_DATASET_LEN_TEST (test) so an epoch
takes seconds.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional

import numpy as np
import torch
from PIL import Image

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def _length(train: bool, default: int) -> int:
    name = "GD_BENCH_DATASET_LEN" if train else "GD_BENCH_DATASET_LEN_TEST"
    return min(default, int(os.environ.get(name, "256" if train else "128")))


class VisionDataset(torch.utils.data.Dataset):
    def __init__(self, root: Any = None, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, transforms: Optional[Callable] = None) -> None:
        self.root = root
        self.transform = transform
        self.target_transform = target_transform
        self.transforms = transforms

    def _apply(self, img: Any, target: Any):
        if self.transforms is not None:
            return self.transforms(img, target)
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class _Synthetic(VisionDataset):
    """Images of shape (H, W[, C]) uint8, label-dependent."""

    shape: tuple = (28, 28)
    num_classes = 10
    full_train = 60000
    full_test = 10000
    seed = 0
    as_numpy = False  # torchvision keeps CIFAR's images as a numpy array and its labels as a list

    def __init__(self, root: Any = None, train: bool = True, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False, **_: Any) -> None:
        super().__init__(root, transform, target_transform)
        self.train = train
        n = _length(train, self.full_train if train else self.full_test)
        g = np.random.default_rng(self.seed + (0 if train else 1))
        protos = np.random.default_rng(self.seed + 99).uniform(0, 255, (self.num_classes,) + self.shape)
        self.targets = torch.as_tensor(g.integers(0, self.num_classes, n), dtype=torch.long)
        noise = g.normal(0, 40, (n,) + self.shape)
        self.data = torch.as_tensor(np.clip(protos[self.targets.numpy()] + noise, 0, 255).astype(np.uint8))
        self.classes = [str(i) for i in range(self.num_classes)]
        if self.as_numpy:
            self.data, self.targets = self.data.numpy(), self.targets.tolist()

    def __len__(self) -> int:
        return len(self.targets)

    def __getitem__(self, index: int):
        img = Image.fromarray(np.asarray(self.data[index]), mode="L" if len(self.shape) == 2 else "RGB")
        return self._apply(img, int(self.targets[index]))


class MNIST(_Synthetic):
    pass


class FashionMNIST(_Synthetic):
    seed = 10


class KMNIST(_Synthetic):
    seed = 20


class CIFAR10(_Synthetic):
    shape = (32, 32, 3)
    full_train = 50000
    seed = 30
    as_numpy = True


class CIFAR100(CIFAR10):
    num_classes = 100
    seed = 40


class FakeData(VisionDataset):
    def __init__(self, size: int = 1000, image_size: tuple = (3, 224, 224), num_classes: int = 10,
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 random_offset: int = 0) -> None:
        super().__init__(None, transform, target_transform)
        self.size = _length(True, size)
        self.image_size = image_size
        self.num_classes = num_classes
        self.random_offset = random_offset

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int):
        g = torch.Generator().manual_seed(index + self.random_offset)
        img = torch.randn(*self.image_size, generator=g)
        target = int(torch.randint(0, self.num_classes, (1,), generator=g))
        # torchvision converts to a PIL image so that PIL transforms apply
        from .transforms import ToPILImage
        return self._apply(ToPILImage()(img), target)


class DatasetFolder(VisionDataset):
    def __init__(self, root: str, loader: Callable, extensions: Optional[tuple] = None,
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 is_valid_file: Optional[Callable] = None, **_: Any) -> None:
        super().__init__(root, transform, target_transform)
        self.classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self.samples = []
        for c in self.classes:
            for dirpath, _, files in sorted(os.walk(os.path.join(root, c))):
                for f in sorted(files):
                    path = os.path.join(dirpath, f)
                    ok = is_valid_file(path) if is_valid_file else f.lower().endswith(extensions or IMG_EXTENSIONS)
                    if ok:
                        self.samples.append((path, self.class_to_idx[c]))
        if not self.samples:
            raise FileNotFoundError(f"Found no valid file for the classes of {root}")
        self.imgs = self.samples
        self.targets = [t for _, t in self.samples]
        self.loader = loader

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int):
        path, target = self.samples[index]
        return self._apply(self.loader(path), target)


def default_loader(path: str) -> Image.Image:
    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


class ImageFolder(DatasetFolder):
    def __init__(self, root: str, transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 loader: Callable = default_loader, is_valid_file: Optional[Callable] = None, **kw: Any) -> None:
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None, transform,
                         target_transform, is_valid_file)


class LSUN(ImageFolder):
    def __init__(self, root: str, classes: Any = "train", transform: Optional[Callable] = None, **kw: Any) -> None:
        super().__init__(root, transform=transform)
