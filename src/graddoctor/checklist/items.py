"""The one source of the checklists: `graddoctor checklist` and docs/checklist.md both render this.

Every item names the catalogue codes that check it automatically and the
tests (tests/checklist/test_claims.py) that verified its factual claim on the
installed torch; tests/checklist/test_checklist_page.py fails when a code or a
test named here does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass

TESTS = "tests/checklist/test_claims.py"


@dataclass(frozen=True)
class Item:
    check: str  # what to look at, in the imperative
    fact: str  # the verified behaviour behind it
    codes: tuple[str, ...]  # catalogue codes that check it automatically
    tests: tuple[str, ...]  # test function names in TESTS


@dataclass(frozen=True)
class Checklist:
    title: str
    intro: str
    items: tuple[Item, ...]


@dataclass(frozen=True)
class Claim:
    """Advice that circulates, and what torch actually does."""

    claim: str
    verdict: str  # "false" or "true"
    actual: str
    tests: tuple[str, ...]


GRADIENT_IS_NONE = Checklist(
    title="Gradient is None",
    intro="A parameter's `.grad` is None after `backward()`. Check, in this order:",
    items=(
        Item(
            "Read `.grad` after `loss.backward()`, not before it or after `optimizer.zero_grad()`.",
            "`.grad` is None before the first backward, and `zero_grad()` sets it back to None by default "
            "(`set_to_none=True`). `'NoneType' object has no attribute 'zero_'` comes from `p.grad.zero_()` "
            "in exactly these cases; `backward()` always returns None and nothing should use its result.",
            (),
            ("test_grad_is_none_before_the_first_backward", "test_zero_grad_sets_grads_to_none_by_default",
             "test_nonetype_has_no_attribute_zero_comes_from_grad_zero_while_grad_is_none"),
        ),
        Item(
            "Make sure forward() uses the parameter: an unused branch or head gets no gradient.",
            "A parameter the loss does not reach keeps `.grad` None.",
            ("GD104",),
            ("test_parameter_not_used_in_forward_gets_no_grad",),
        ),
        Item(
            "Look for cuts between the parameter and the loss: `detach()`, `.data`, a numpy round trip, "
            "`torch.tensor(t)` re-wrapping, `argmax`/`round`/comparisons.",
            "Each returns a tensor without history; a loss built on it trains only the copy.",
            ("GD102", "GD104"),
            ("test_detach_data_item_and_numpy_cut_the_graph",),
        ),
        Item(
            "Call `backward()` on the loss tensor, and use `.item()` only for logging.",
            "`loss.item().backward()` fails at once with AttributeError; printing `loss.item()` before "
            "`loss.backward()` changes nothing.",
            ("GD101",),
            ("test_loss_item_backward_fails_at_once", "test_printing_loss_item_before_backward_is_harmless"),
        ),
        Item(
            "Compute the training forward pass and loss outside `torch.no_grad()` / `inference_mode()`.",
            "A loss computed there makes `backward()` raise \"does not require grad and does not have a grad_fn\" "
            "(it is not a silent no-op). Calling `backward()` inside `no_grad` on a loss built outside it works.",
            ("GD110", "GD112"),
            ("test_loss_computed_under_no_grad_makes_backward_raise",
             "test_loss_computed_under_inference_mode_makes_backward_raise",
             "test_backward_inside_no_grad_on_a_loss_built_outside_works"),
        ),
        Item(
            "Check `requires_grad` of the parameter: frozen parameters get no gradient.",
            "After `requires_grad_(False)` a parameter's `.grad` stays None while the rest trains.",
            ("GD210", "GD104"),
            ("test_frozen_parameters_get_no_grad",),
        ),
        Item(
            "Read `.grad` of leaf tensors only: `torch.randn(..., requires_grad=True) * 0.01` is not a leaf.",
            "A non-leaf's `.grad` is None (with a warning) unless you call `.retain_grad()`; create the tensor, "
            "then scale it, then call `.requires_grad_()`.",
            (),
            ("test_non_leaf_tensor_has_no_grad_unless_retain_grad",),
        ),
        Item(
            "Change parameters in place only under `torch.no_grad()`, never through `.data`.",
            "Outside no_grad, an in-place op on a leaf that requires grad raises at once. Through `.data` nothing "
            "raises, and an edit after the forward pass makes backward use the edited value: a silently wrong "
            "gradient, not None.",
            ("GD109", "GD108"),
            ("test_in_place_op_on_a_leaf_that_requires_grad_raises",
             "test_data_fill_raises_nothing_and_a_data_edit_after_forward_gives_a_wrong_gradient"),
        ),
        Item(
            "Register trainable tensors: `self.w = nn.Parameter(...)`, submodules in `nn.ModuleList`/`nn.ModuleDict`.",
            "A plain tensor attribute with `requires_grad=True` or modules in a Python list are not in "
            "`model.parameters()`: they get gradients, but an optimizer built from `parameters()` never updates them.",
            ("GD105",),
            ("test_nn_parameter_attribute_registers_but_plain_tensor_and_python_list_do_not",),
        ),
    ),
)

LOSS_NOT_DECREASING = Checklist(
    title="Loss does not go down",
    intro="The loop runs without errors but the loss stays flat. Check, in this order:",
    items=(
        Item(
            "Call `optimizer.step()` after `backward()`.",
            "Without a step the parameters never change, however many backward passes run.",
            ("GD203", "GD204"),
            ("test_backward_without_step_changes_no_parameter",),
        ),
        Item(
            "Clear gradients once per step: `zero_grad()` before `backward()` or after `step()`, never between them.",
            "`zero_grad()` before `backward()` gives the same parameters as after `step()`; between `backward()` "
            "and `step()` it cancels the update; never clearing adds each step's gradient to the last.",
            ("GD201", "GD202"),
            ("test_zero_grad_before_backward_is_fine", "test_zero_grad_between_backward_and_step_cancels_the_update",
             "test_missing_zero_grad_accumulates_gradients"),
        ),
        Item(
            "Give the optimizer every parameter that should train.",
            "Parameters left out of the optimizer receive gradients and never change.",
            ("GD106",),
            ("test_parameters_left_out_of_the_optimizer_never_change",),
        ),
        Item(
            "Check that gradients reach every layer (the \"gradient is None\" list below).",
            "Cut or unused parts of the model keep their initial weights.",
            ("GD104", "GD102", "GD111"),
            ("test_parameter_not_used_in_forward_gets_no_grad",),
        ),
        Item(
            "Train in train mode: call `model.train()` after evaluation.",
            "In eval mode dropout is off and batch-norm statistics are frozen.",
            ("GD208",),
            ("test_eval_mode_changes_dropout_and_batchnorm_during_training",),
        ),
        Item(
            "Evaluate in eval mode: call `model.eval()` before the test pass; `no_grad()` alone is not enough.",
            "Under `no_grad()` a model in training mode still applies dropout (two passes give different outputs) "
            "and batch norm overwrites its running statistics with the test batch.",
            ("GD211",),
            ("test_no_grad_alone_leaves_dropout_on_and_batchnorm_updating",),
        ),
        Item(
            "Build RNN, LSTM, GRU and attention layers with `batch_first=True` when batches are (batch, seq, feature).",
            "Without it the layer reads dimension 0 as time: changing one sample of the batch changes the other "
            "samples' outputs.",
            ("GD506",),
            ("test_lstm_without_batch_first_mixes_the_samples_of_a_batch",),
        ),
        Item(
            "Check the learning rate: with lr 0 (or a schedule that reaches 0) nothing trains.",
            "With lr=0 the parameters stay bit-identical after steps.",
            ("GD204", "GD305"),
            ("test_learning_rate_zero_leaves_parameters_unchanged",),
        ),
        Item(
            "Look for NaN/Inf in the loss and gradients; one bad batch ruins the model.",
            "A NaN in one target makes every parameter NaN after a single SGD step.",
            ("GD301", "GD302", "GD303"),
            ("test_nan_in_the_loss_spreads_to_every_parameter_after_one_step",),
        ),
        Item(
            "Step the scheduler after the optimizer, and epoch-based schedulers once per epoch.",
            "`scheduler.step()` before the first `optimizer.step()` makes torch warn that the first value of the "
            "schedule is skipped.",
            ("GD205",),
            ("test_scheduler_step_before_optimizer_step_warns",),
        ),
        Item(
            "Under a GradScaler, call `scaler.unscale_(optimizer)` before clipping.",
            "Before `unscale_` the gradients are multiplied by the scale (1024x here), so a clip threshold meant "
            "for real gradients clips almost everything.",
            ("GD209", "GD206", "GD307"),
            ("test_clipping_under_grad_scaler_without_unscale_clips_scaled_gradients",),
        ),
        Item(
            "With gradient accumulation, divide each micro-batch loss by k and call `backward()` per micro-batch.",
            "Summing k losses before one `backward()` keeps all k graphs alive (about k times the activation "
            "memory) and scales the gradient by k unless the loss is divided by k.",
            ("GD207",),
            ("test_summing_k_losses_before_backward_keeps_k_graphs_alive_and_scales_the_gradient",),
        ),
        Item(
            "Overfit one small batch: a correct model and loop drive its loss close to zero.",
            "A small MLP with Adam brings an 8-sample batch's loss below 1% of its start within 300 steps; "
            "if yours cannot, the bug is in the model or loop, not the data.",
            ("GD306",),
            ("test_a_correct_loop_overfits_one_small_batch",),
        ),
    ),
)

CHECKLISTS = (LOSS_NOT_DECREASING, GRADIENT_IS_NONE)

CLAIMS = (
    Claim(
        "`'NoneType' object has no attribute 'zero_'` means `backward()` returned None.",
        "false",
        "`backward()` always returns None. The error comes from `p.grad.zero_()` while `p.grad` is None: before "
        "the first backward, after `zero_grad()` (which sets grads to None by default), or for a parameter the "
        "loss does not reach.",
        ("test_nonetype_has_no_attribute_zero_comes_from_grad_zero_while_grad_is_none",),
    ),
    Claim(
        "Printing `loss.item()` before `loss.backward()` breaks the graph.",
        "false",
        "It is harmless: the gradients are bit-identical. Only `loss.item().backward()` fails, at once, with "
        "AttributeError.",
        ("test_printing_loss_item_before_backward_is_harmless", "test_loss_item_backward_fails_at_once"),
    ),
    Claim(
        "A loss computed under `no_grad` makes `backward()` a silent no-op.",
        "false",
        "`backward()` raises RuntimeError. And `backward()` called inside `no_grad` on a loss built outside it "
        "works normally.",
        ("test_loss_computed_under_no_grad_makes_backward_raise",
         "test_backward_inside_no_grad_on_a_loss_built_outside_works"),
    ),
    Claim(
        "`zero_grad()` must come after `step()`; calling it before `backward()` is a bug.",
        "false",
        "Before `backward()` is fine and gives identical parameters; only between `backward()` and `step()` "
        "does it cancel the update.",
        ("test_zero_grad_before_backward_is_fine", "test_zero_grad_between_backward_and_step_cancels_the_update"),
    ),
    Claim(
        "`retain_graph=True` goes on the second `backward()`.",
        "false",
        "It belongs on the first: the first backward frees the shared graph, so the second fails whatever it is "
        "passed.",
        ("test_retain_graph_belongs_on_the_first_backward",),
    ),
    Claim(
        "`self.w = torch.randn(..., requires_grad=True)` in `__init__` is a parameter.",
        "false",
        "Only `nn.Parameter` attributes (and modules in `nn.ModuleList`/`ModuleDict`) are registered; a plain "
        "tensor or modules in a Python list are not in `parameters()`.",
        ("test_nn_parameter_attribute_registers_but_plain_tensor_and_python_list_do_not",),
    ),
    Claim(
        "`.detach()` on the targets in a `collate_fn` cuts the gradient.",
        "false",
        "Targets do not require grad; the gradients are identical with or without it.",
        ("test_collate_fn_detach_on_targets_cuts_nothing",),
    ),
    Claim(
        "A `torch.jit.trace`d module cannot be trained.",
        "false",
        "It trains: its parameters are the original module's and the loss falls.",
        ("test_jit_traced_module_trains",),
    ),
    Claim(
        "Calling `.item()` inside a `torch.compile`d function drops the graph.",
        "false",
        "It causes a graph break, not a cut: the returned loss has a grad_fn and every parameter gets a gradient "
        "(the suite checks it with the aot_eager backend to stay fast: the same Dynamo capture and AOTAutograd "
        "as the default inductor backend, which only changes the kernels).",
        ("test_item_does_not_drop_the_graph_under_torch_compile",),
    ),
    Claim(
        "`torch.autograd.gradcheck` works on float32 inputs.",
        "false",
        "In float32 it reports a Jacobian mismatch for a correct function; use float64 (as `verify_layer` does).",
        ("test_gradcheck_needs_float64",),
    ),
    Claim(
        "`w.data.fill_(0)` raises, and editing `.data` after the forward pass leaves the gradient None.",
        "false",
        "Neither raises; the gradient is silently computed from the edited value (wrong, not None). The same "
        "edit without `.data`, under `no_grad`, is caught at backward.",
        ("test_data_fill_raises_nothing_and_a_data_edit_after_forward_gives_a_wrong_gradient",),
    ),
    Claim(
        "Summing k micro-batch losses and calling `backward()` once is the same as accumulating.",
        "false",
        "It keeps all k graphs alive (about k times the activation memory) and scales the gradient by k unless "
        "the loss is divided by k.",
        ("test_summing_k_losses_before_backward_keeps_k_graphs_alive_and_scales_the_gradient",),
    ),
)
