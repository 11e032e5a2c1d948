"""Errors graddoctor raises at the user (helpers' checks), as opposed to findings.

Each error about a loss carries the catalogue `code` of the finding that
describes the same mistake, so `graddoctor rules <code>` explains it at length.
"""

from __future__ import annotations


class GradDoctorError(Exception):
    """Base of every error graddoctor raises on purpose."""

    code: str | None = None


class LossError(GradDoctorError):
    """The loss handed to backward() cannot train the model."""


class LossIsNumberError(LossError, TypeError):
    """The loss is a Python number (or numpy value), not a tensor: it has no autograd history."""

    code = "GD101"


class LossWithoutGraphError(LossError):
    """The loss tensor has no grad_fn and does not require grad: no gradient can reach a parameter."""

    code = "GD102"


class GradModeOffError(LossWithoutGraphError):
    """The loss was computed while gradient recording was off (no_grad, inference_mode)."""

    code = "GD110"


class NonScalarLossError(LossError, ValueError):
    """The loss has more than one element, so backward() needs an explicit reduction."""

    code = "GD103"


class NonFiniteLossError(LossError, ValueError):
    """The loss holds NaN or infinite values."""

    code = "GD301"


class LayerCheckError(GradDoctorError):
    """verify_layer() cannot judge the layer's gradients at all."""


class NonDifferentiableLayerError(LayerCheckError):
    """The layer's output has no gradient with respect to its inputs and parameters."""


class NonDeterministicLayerError(LayerCheckError):
    """The layer gives different outputs for the same inputs, so finite differences are meaningless."""
