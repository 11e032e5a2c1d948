"""Helpers for training code: checked losses, a safe backward step, a gradient check, a reference loop."""

from graddoctor.helpers.backward import BackwardResult, safe_backward
from graddoctor.helpers.loop import EpochResult, train_one_epoch
from graddoctor.helpers.loss import check_loss, ensure_tensor_loss
from graddoctor.helpers.verify import GradientMismatch, LayerCheck, verify_layer

__all__ = [
    "BackwardResult",
    "EpochResult",
    "GradientMismatch",
    "LayerCheck",
    "check_loss",
    "ensure_tensor_loss",
    "safe_backward",
    "train_one_epoch",
    "verify_layer",
]
