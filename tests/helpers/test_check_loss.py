"""check_loss and ensure_tensor_loss on real losses of a tiny model."""

from __future__ import annotations

import copy
import inspect

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import GradDoctorError, check_loss, ensure_tensor_loss
from graddoctor.errors import (
    GradModeOffError,
    LossIsNumberError,
    LossWithoutGraphError,
    NonFiniteLossError,
    NonScalarLossError,
)


@pytest.fixture
def model():
    return nn.Linear(3, 1)


@pytest.fixture
def batch():
    return torch.randn(4, 3), torch.randn(4, 1)


def test_good_loss_is_returned_unchanged_and_trains(model, batch):
    x, y = batch
    loss = F.mse_loss(model(x), y)
    assert check_loss(loss) is loss
    loss.backward()
    assert model.weight.grad is not None


@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad=True")
@pytest.mark.parametrize("convert", [lambda t: t.item(), float, lambda t: t.detach().numpy()])
def test_python_number_or_numpy_is_refused(model, batch, convert):
    loss = convert(F.mse_loss(model(*batch[:1]), batch[1]))
    with pytest.raises(LossIsNumberError, match="not a tensor") as info:
        check_loss(loss)
    assert info.value.code == "GD101"
    assert isinstance(info.value, GradDoctorError) and isinstance(info.value, TypeError)


def test_detached_loss_names_the_cut(model, batch):
    x, y = batch
    with pytest.raises(LossWithoutGraphError, match="detach") as info:
        check_loss(F.mse_loss(model(x).detach(), y))
    assert info.value.code == "GD102"
    assert not isinstance(info.value, GradModeOffError)


def test_loss_under_no_grad_and_inference_mode_says_grad_mode(model, batch):
    x, y = batch
    with torch.no_grad():
        loss = F.mse_loss(model(x), y)
        with pytest.raises(GradModeOffError, match="no_grad") as info:
            check_loss(loss)
    assert info.value.code == "GD110"
    with torch.inference_mode():
        loss = F.mse_loss(model(x), y)
    with pytest.raises(GradModeOffError, match="inference_mode"):
        check_loss(loss)


def test_backward_inside_no_grad_on_a_loss_built_outside_is_accepted(model, batch):
    loss = F.mse_loss(model(batch[0]), batch[1])
    with torch.no_grad():
        assert check_loss(loss) is loss


def test_per_sample_loss_names_the_reduction(model, batch):
    x, y = batch
    with pytest.raises(NonScalarLossError, match=r"4 elements \(shape \(4, 1\)") as info:
        check_loss(F.mse_loss(model(x), y, reduction="none"))
    assert "loss.mean()" in str(info.value)
    assert info.value.code == "GD103"


def test_non_finite_loss_says_how_many_and_where(model, batch):
    x, y = batch
    per_sample = F.mse_loss(model(x), y, reduction="none").squeeze(1)
    poisoned = per_sample * torch.tensor([1.0, float("nan"), 1.0, float("inf")])
    with pytest.raises(NonFiniteLossError, match=r"1 NaN, 1 infinite of 4 values \(at index 1, 3\)"):
        check_loss(poisoned)
    with pytest.raises(NonFiniteLossError, match="is NaN"):
        check_loss(per_sample.mean() * float("nan"))
    with pytest.raises(NonFiniteLossError, match=r"is \+inf"):
        check_loss(per_sample.mean() * float("inf"))


def test_leaf_that_requires_grad_is_a_valid_loss():
    w = torch.tensor(2.0, requires_grad=True)
    assert check_loss(w) is w


# --- ensure_tensor_loss ----------------------------------------------------------------


def test_decorated_function_keeps_name_doc_and_signature():
    def weighted(pred: torch.Tensor, target: torch.Tensor, weight: float = 1.0) -> torch.Tensor:
        """Weighted squared error."""
        return weight * ((pred - target) ** 2).mean()

    checked = ensure_tensor_loss()(weighted)
    assert checked.__name__ == "weighted"
    assert checked.__doc__ == "Weighted squared error."
    assert inspect.signature(checked) == inspect.signature(weighted)
    pred = torch.zeros(3, requires_grad=True)
    assert torch.equal(checked(pred, torch.ones(3), weight=2.0), weighted(pred, torch.ones(3), weight=2.0))


def test_bare_decorator_form_works():
    @ensure_tensor_loss
    def loss_fn(pred, target):
        return ((pred - target) ** 2).mean().item()

    with pytest.raises(LossIsNumberError, match=r"returned by loss_fn\(\) is a Python float"):
        loss_fn(torch.zeros(2, requires_grad=True), torch.ones(2))


@pytest.mark.parametrize("reduce", ["mean", "sum"])
def test_reduce_matches_the_builtin_reduction(model, batch, reduce):
    x, y = batch

    @ensure_tensor_loss(reduce=reduce)
    def per_sample(pred, target):
        return F.mse_loss(pred, target, reduction="none")

    reduced = per_sample(model(x), y)
    assert torch.equal(reduced, F.mse_loss(model(x), y, reduction=reduce))
    reduced.backward()
    assert model.weight.grad is not None


def test_without_reduce_a_per_sample_loss_fails_with_the_function_name(model, batch):
    @ensure_tensor_loss()
    def per_sample(pred, target):
        return F.mse_loss(pred, target, reduction="none")

    with pytest.raises(NonScalarLossError, match=r"per_sample\(\) has 4 elements"):
        per_sample(model(batch[0]), batch[1])


def test_reduce_reports_which_samples_are_not_finite(model, batch):
    x, y = batch
    y = y.clone()
    y[2] = float("nan")

    @ensure_tensor_loss(reduce="mean")
    def per_sample(pred, target):
        return F.mse_loss(pred, target, reduction="none")

    with pytest.raises(NonFiniteLossError, match=r"1 NaN of 4 values \(at index \(2, 0\)\)"):
        per_sample(model(x), y)


def test_module_class_and_instance_are_wrapped(model, batch):
    x, y = batch

    @ensure_tensor_loss(reduce="mean")
    class PerSampleL1(nn.Module):
        def forward(self, pred, target):
            return (pred - target).abs()

    assert PerSampleL1.__name__ == "PerSampleL1"
    assert torch.equal(PerSampleL1()(model(x), y), F.l1_loss(model(x), y))

    criterion = ensure_tensor_loss(reduce="sum")(nn.MSELoss(reduction="none"))
    assert isinstance(criterion, nn.MSELoss)
    assert torch.equal(criterion(model(x), y), F.mse_loss(model(x), y, reduction="sum"))

    strict = ensure_tensor_loss()(nn.MSELoss(reduction="none"))
    with pytest.raises(NonScalarLossError, match=r"MSELoss\.forward\(\)"):
        strict(model(x), y)
    with pytest.raises(NonScalarLossError):
        copy.deepcopy(strict)(model(x), y)  # the check travels with copies
    assert nn.MSELoss(reduction="none")(model(x), y).shape == (4, 1)  # the class itself is untouched


def test_bad_reduce_is_a_clear_value_error():
    with pytest.raises(ValueError, match="choose None, 'mean' or 'sum'"):
        ensure_tensor_loss(reduce="max")


def test_numpy_scalar_loss_is_named():
    with pytest.raises(LossIsNumberError, match="numpy float"):
        check_loss(np.float32(0.5))


def test_forgotten_return_is_named():
    @ensure_tensor_loss()
    def forgot(pred, target):
        ((pred - target) ** 2).mean()

    with pytest.raises(LossIsNumberError, match=r"forgot\(\) is None \(a function that computes the loss but does not `return`"):
        forgot(torch.zeros(2, requires_grad=True), torch.ones(2))
