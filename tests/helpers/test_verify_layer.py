"""verify_layer on correct and broken custom layers: names what disagrees, never touches the user's layer."""

from __future__ import annotations

import random

import pytest
import torch
from torch import nn

from graddoctor import verify_layer
from graddoctor.errors import NonDeterministicLayerError, NonDifferentiableLayerError


class ScaledTanh(torch.autograd.Function):
    """y = tanh(x * w); backward deliberately forgets the derivative for w unless told otherwise."""

    @staticmethod
    def forward(ctx, x, w, correct_w):
        y = torch.tanh(x * w)
        ctx.save_for_backward(x, w, y)
        ctx.correct_w = correct_w
        return y

    @staticmethod
    def backward(ctx, grad):
        x, w, y = ctx.saved_tensors
        local = grad * (1 - y * y)
        grad_w = (local * x).sum(0) if ctx.correct_w else (local * x).sum(0) * 0.5
        return local * w, grad_w, None


class Gate(nn.Module):
    def __init__(self, correct_w: bool = True) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.linspace(0.5, 1.5, 4))
        self.correct_w = correct_w

    def forward(self, x):
        return ScaledTanh.apply(x, self.w, self.correct_w)


def test_correct_layers_pass():
    assert verify_layer(Gate(), torch.randn(3, 4)).ok
    block = nn.Sequential(nn.Linear(4, 5), nn.LayerNorm(5), nn.GELU())
    result = verify_layer(block, torch.randn(2, 4))
    assert result.ok and bool(result)
    assert result.checked == ["input input", "parameter 0.weight", "parameter 0.bias",
                              "parameter 1.weight", "parameter 1.bias"]
    assert "gradients match" in str(result)


def test_wrong_parameter_gradient_is_named_with_its_error():
    result = verify_layer(Gate(correct_w=False), torch.randn(3, 4))
    assert not result.ok
    assert [m.name for m in result.mismatches] == ["parameter w"]
    (bad,) = result.mismatches
    assert bad.bad_elements == bad.checked_elements == 4
    # The analytic value is half the true one.
    assert bad.analytic == pytest.approx(bad.numeric / 2, rel=1e-6)
    assert bad.max_abs_error == pytest.approx(abs(bad.numeric) / 2, rel=1e-6)
    assert "parameter w [4]: 4 of 4 elements disagree" in str(result)


def test_wrong_input_gradient_is_named_by_the_argument_name():
    class Product(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad * b, grad * b  # the gradient for b should be grad * a

    def product(a, b):
        return Product.apply(a, b)

    result = verify_layer(product, torch.randn(5), torch.randn(5))
    assert [m.name for m in result.mismatches] == ["input b"]
    assert result.checked == ["input a", "input b"]


def test_missing_gradient_is_reported_as_none():
    class Forgets(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + 2 * b

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    result = verify_layer(Forgets.apply, torch.randn(3), torch.randn(3))
    (bad,) = result.mismatches
    assert bad.name == "input b" and "no gradient (None)" in str(bad)  # named from forward(ctx, a, b)
    assert str(result).startswith("verify_layer(Forgets.apply): 1 of 2 gradients disagree")
    assert bad.bad_elements == 3 and bad.numeric != 0.0


def test_float32_layer_is_checked_in_float64_and_the_user_module_is_untouched():
    torch.manual_seed(0)
    layer = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.Tanh())
    before = {k: v.clone() for k, v in layer.state_dict().items()}
    x = torch.randn(3, 4)
    rng = torch.get_rng_state()
    result = verify_layer(layer, x)
    assert result.ok  # dropout is run with a fixed seed for every evaluation
    assert all(torch.equal(before[k], v) and v.dtype == torch.float32 for k, v in layer.state_dict().items())
    assert all(p.grad is None for p in layer.parameters())
    assert layer.training and x.dtype == torch.float32 and not x.requires_grad
    assert torch.equal(torch.get_rng_state(), rng)


def test_non_differentiable_layers_get_a_clear_error():
    with pytest.raises(NonDifferentiableLayerError, match="no floating-point tensor"):
        verify_layer(lambda x: x.argmax(dim=-1), torch.randn(2, 3))
    with pytest.raises(NonDifferentiableLayerError, match="no grad_fn"):
        verify_layer(lambda x: x.detach() * 2, torch.randn(3))
    with pytest.raises(NonDifferentiableLayerError, match="nothing to check"):
        verify_layer(lambda n: torch.arange(n, dtype=torch.float32), 3)


def test_non_deterministic_layer_gets_a_clear_error():
    class Jitter(nn.Module):
        def forward(self, x):
            return x * random.random()  # Python's RNG: a fixed torch seed does not pin it

    with pytest.raises(NonDeterministicLayerError, match="different outputs"):
        verify_layer(Jitter(), torch.randn(3))


def test_large_tensors_are_sampled():
    result = verify_layer(nn.Linear(64, 64), torch.randn(2, 64), max_elements=50)
    assert result.ok and result.checked[1] == "parameter weight"


def test_function_without_a_backward_is_non_differentiable():
    class NoBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    with pytest.raises(NonDifferentiableLayerError, match="backward failed"):
        verify_layer(NoBackward.apply, torch.randn(3))


def test_non_tensor_and_integer_arguments_are_passed_through_unchecked():
    def gather_pow(x, index, k):
        return x[index] ** k

    result = verify_layer(gather_pow, torch.randn(5), torch.tensor([0, 2, 2]), 3)
    assert result.ok and result.checked == ["input x"]
