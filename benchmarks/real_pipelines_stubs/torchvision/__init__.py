"""A stand-in for torchvision, for benchmarks/real_pipelines.py only.

The real torchvision does not import beside the project's torch, and the
benchmark may not download data. This package offers what the example
scripts use: synthetic datasets of the right shapes (class-dependent, so a
model can learn them), the PIL transforms, resnet/vgg models, save_image.
"""

from . import datasets, models, transforms, utils

__version__ = "0.0.0+graddoctor-bench-stub"
__all__ = ["datasets", "models", "transforms", "utils"]
