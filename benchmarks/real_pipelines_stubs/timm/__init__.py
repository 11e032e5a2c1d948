"""A stand-in for timm's create_model, for benchmarks/real_pipelines.py only.

Offers the ResNets of the torchvision stand-in (random weights: nothing is
downloaded) with timm's `default_cfg` and `get_classifier()`.
"""

from __future__ import annotations

from typing import Any

from torch import nn
from torchvision import models

__version__ = "0.0.0+graddoctor-bench-stub"

_ARCHS = {"resnet18": models.resnet18, "resnet34": models.resnet34, "resnet50": models.resnet50,
          "resnet50d": models.resnet50}


def create_model(model_name: str, pretrained: bool = False, num_classes: int = 1000, **kwargs: Any) -> nn.Module:
    if model_name not in _ARCHS:
        raise RuntimeError(f"Unknown model ({model_name}) in the benchmark's timm stand-in")
    model = _ARCHS[model_name](num_classes=num_classes)
    model.default_cfg = {"mean": (0.485, 0.456, 0.406), "std": (0.229, 0.224, 0.225), "input_size": (3, 224, 224)}
    model.get_classifier = lambda: model.fc
    return model
