"""Known error messages, each tied to the code that explains it.

The texts are PyTorch's own (torch/csrc/autograd and torch/_tensor.py), matched
loosely enough to survive small wording changes between releases.
"""

from __future__ import annotations

from graddoctor.explain.pattern import ErrorPattern
from graddoctor.explain.pattern import pattern as _p
from graddoctor.explain.training_patterns import TRAINING_PATTERNS
from graddoctor.explain.worker_patterns import WORKER_PATTERNS

# What code does with a gradient tensor; another attribute on None is not about .grad.
_TENSOR_ATTRS = (
    r"zero_|fill_|data|norm|mul_|div_|add_|sub_|clamp_|clamp|copy_|clone|detach|item|abs|sum|mean|pow|"
    r"shape|size|numel|sign|square|sqrt|to|cpu|float|max|min|any|all|isnan|isfinite|add|mul|div|sub|neg|"
    r"view|reshape|flatten|numpy|tolist|dtype|device|std|var"
)

PATTERNS: list[ErrorPattern] = [
    _p(
        "GD101",
        r"'(?P<type>float|int|bool|numpy\.\w+|list|tuple|str)' object has no attribute '(?P<attr>backward|grad_fn|requires_grad)'",
        "backward() was called on a {type}, not on a tensor: the loss was turned into a Python "
        "number (by .item(), float(), .tolist() or .numpy()) before backward(), and numbers have "
        "no autograd history.",
        exc_types=("AttributeError",),
    ),
    _p(
        "GD104",
        r"'NoneType' object has no attribute '(?P<attr>" + _TENSOR_ATTRS + ")'",
        "A parameter's .grad is None where the code expects a tensor (`.grad.{attr}`). .grad is "
        "None before the first backward(), after optimizer.zero_grad() (which sets gradients to None "
        "by default since torch 2.0), and for a parameter the loss does not reach.",
        hint=(
            "Guard the access (`if p.grad is not None:`), use `optimizer.zero_grad()` instead of "
            "zeroing .grad by hand, and check that the loss reaches the parameter."
        ),
        exc_types=("AttributeError",),
        source_has="grad",
    ),
    _p(
        "GD102",
        r"element (?P<index>\d+) of tensors does not require grad and does not have a grad_fn",
        "backward() (or autograd.grad) was called on a tensor with no autograd history: it does not "
        "require grad and has no grad_fn, so every path from the parameters to it was cut (detach(), "
        ".data, a numpy or .item() round trip, torch.tensor(...) re-wrapping, a non-differentiable op) "
        "or it was computed under torch.no_grad() / inference_mode().",
    ),
    _p(
        "GD102",
        r"One of the differentiated Tensors does not require grad",
        "torch.autograd.grad() was asked for the gradient with respect to a tensor that does not "
        "require grad: it is not a leaf of the graph (it was detached, re-created, or never had "
        "requires_grad=True).",
        hint="Pass tensors that require grad as `inputs` (the parameters, or `x.requires_grad_()` before the forward pass).",
    ),
    _p(
        "GD102",
        r"Can't call numpy\(\) on Tensor that requires grad",
        ".numpy() was called on a tensor that is part of the autograd graph. numpy arrays carry no "
        "history: if the result feeds the loss, the gradient stops there.",
        hint="For logging or plotting use `t.detach().cpu().numpy()`; on the training path keep the "
        "computation in torch ops so the gradient can flow.",
    ),
    _p(
        "GD102",
        r"cannot register a hook on a tensor that doesn't require gradient",
        "A gradient hook was registered on a tensor that has no autograd history (it does not require "
        "grad): no gradient will ever reach it, because the path to it was cut or never recorded.",
        hint="Register the hook on a tensor computed from the parameters with grad mode on, or check "
        "why this tensor was detached / computed under no_grad.",
    ),
    _p(
        "GD102",
        r"you can only change requires_grad flags of leaf variables",
        "requires_grad_() was called on a tensor computed by an op (not a leaf): its flag follows "
        "from its inputs and cannot be switched.",
        hint="To cut it from the graph use `t = t.detach()`; to freeze parameters call "
        "`p.requires_grad_(False)` on the parameters themselves.",
    ),
    _p(
        "GD103",
        r"grad can be implicitly created only for (?:real )?scalar outputs",
        "backward() was called on a tensor with one element per GPU: under `nn.DataParallel`, a loss "
        "computed inside the model's forward (a Hugging Face model given `labels=`) is gathered from "
        "every replica into a vector, one loss per GPU.",
        hint="Reduce it before backward: `loss.mean().backward()` (for a model output, "
        "`outputs.loss.mean().backward()`); or compute the loss outside the DataParallel model.",
        context=r"data_parallel\.py|DataParallel",
    ),
    _p(
        "GD103",
        r"grad can be implicitly created only for (?:real )?scalar outputs",
        "backward() was called on a tensor with more than one element (or a complex one) and no "
        "`gradient=` argument; autograd can only start from a single real number.",
    ),
    _p(
        "GD103",
        r"Mismatch in shape: grad_output\[(?P<i>\d+)\] has a shape of (?P<grad>torch\.Size\(\[[^\]]*\]\)) "
        r"and output\[\d+\] has a shape of (?P<out>torch\.Size\(\[[^\]]*\]\))",
        "The `gradient=` given to backward() has shape {grad} but the tensor backward() was called on "
        "has shape {out}: they must match.",
        hint="Reduce the loss to a scalar and call `loss.backward()` without `gradient=`, or pass a "
        "gradient of the loss's exact shape.",
    ),
    _p(
        "GD104",
        r"The differentiated Tensor at index (?P<index>\d+) appears to not have been used in the graph",
        "torch.autograd.grad() was asked for the gradient of input {index}, but the output does not "
        "depend on it: that tensor (a parameter, say) does not reach the loss, so it gets no gradient.",
        hint="Check that the input is really used in the forward pass (an unused layer, a detach(), a "
        "no_grad block), or pass `allow_unused=True` if it is meant to be unused.",
    ),
    _p(
        "GD104",
        r"can't optimize a non-leaf Tensor",
        "The optimizer was given a tensor computed by an op (for example `torch.randn(..., "
        "requires_grad=True).to(device)` or `w * 2`), not a leaf: backward() never fills its .grad, so "
        "the optimizer could never change it.",
        hint="Create the tensor on its device and then set requires_grad (`torch.randn(..., device=d, "
        "requires_grad=True)`), or make it an `nn.Parameter` of the module, and give that to the optimizer.",
        exc_types=("ValueError",),
    ),
    _p(
        "GD104",
        r"The \.grad attribute of a Tensor that is not a leaf Tensor is being accessed",
        "`.grad` was read on a tensor computed by an op (not a leaf): autograd fills .grad only for "
        "leaves, so it is None. Often the tensor was meant to be a parameter but was moved or re-created "
        "after requires_grad was set.",
        hint="Call `t.retain_grad()` before backward() if you need this intermediate gradient, or read "
        ".grad on the leaf (the parameter) instead.",
    ),
    _p(
        "GD107",
        r"Trying to backward through the graph a second time",
        "backward() ran through a graph whose saved values an earlier backward() already freed. Usually "
        "a tensor carried from the previous iteration (an RNN hidden state, a running statistic, a "
        "cached embedding) still holds that iteration's graph, or two losses share part of a graph and "
        "each calls backward().",
    ),
    _p(
        "GD108",
        r"modified by an inplace operation: \[(?P<type>[\w.]+) \[(?P<shape>[\d, ]*)\]\], which is output "
        r"(?P<out>\d+) of (?P<node>\w+), is at version (?P<version>\d+); expected version (?P<expected>\d+)",
        "A tensor of shape [{shape}] (output {out} of {node}) was saved for the backward pass and then "
        "changed in place (version {expected} when saved, {version} now), so its gradient cannot be "
        "computed. The traceback shows backward(), not the in-place edit: look for `x.op_()`, `x += ...`, "
        "`x[...] = ...` or `inplace=True` on that tensor after {node} made it.",
    ),
    _p(
        "GD108",
        r"modified by an inplace operation: \[(?P<type>[\w.]+) \[(?P<shape>[\d, ]*)\]\] is at version "
        r"(?P<version>\d+); expected version (?P<expected>\d+)",
        "A tensor of shape [{shape}] that no op made (a leaf: in a training loop, a parameter, e.g. a "
        "weight) was saved by the forward pass and then changed in place before this backward: most "
        "often an `optimizer.step()` ran between the forward and the backward that needs it. In a GAN, "
        "the discriminator is stepped and then the generator's loss, computed from the same `D(fake)` "
        "forward, is backpropagated through the updated weights.",
        hint="Call backward() for every loss of a forward pass before the optimizer.step() that changes "
        "its parameters: step D, then compute the generator's loss with a fresh `D(fake)`; or run both "
        "backward passes first and both steps after. An in-place edit of a weight outside "
        "`torch.no_grad()` does the same.",
    ),
    _p(
        "GD108",
        r"modified by an inplace operation",
        "A tensor autograd saved for the backward pass was changed in place afterwards, so its gradient "
        "cannot be computed.",
    ),
    _p(
        "GD108",
        r"Output (?P<out>\d+) of (?P<node>\w+) is a view and (?:is being modified inplace|its base or another view)",
        "An in-place op modified output {out} of {node}, a view that autograd cannot track in place "
        "(for example one of several views returned by split/chunk/unbind).",
        hint="Use an out-of-place op on the view (`a = a * 2`), or `clone()` it before editing.",
    ),
    _p(
        "GD108",
        r"A view was created in no_grad mode and is being modified inplace with grad mode enabled",
        "A view taken under torch.no_grad() is edited in place with gradient recording on; autograd "
        "cannot tell whether the edit should be tracked.",
        hint="Do both the view and the in-place edit inside the no_grad block, or both outside it.",
    ),
    _p(
        "GD109",
        r"a (?P<view>view of a )?leaf Variable that requires grad is being used in an in-place operation",
        "An in-place op was applied to a leaf tensor that requires grad (a parameter{view_note}) with "
        "gradient recording on; autograd forbids it because the leaf's gradient would be wrong.",
        hint="Update parameters under `with torch.no_grad():` (as optimizers do), or use an "
        "out-of-place op (`w = w * 2`) if the result is a new tensor.",
    ),
    _p(
        "GD112",
        r"Inference tensors cannot be saved for backward",
        "A tensor created under torch.inference_mode() (cached features, a precomputed table) is used in "
        "a computation autograd records and must save; inference tensors cannot be saved.",
    ),
    _p(
        "GD112",
        r"Inplace update to inference tensor outside InferenceMode",
        "A tensor created under torch.inference_mode() is modified in place outside inference mode, "
        "which is not allowed.",
        hint="Create the tensor under `torch.no_grad()` instead, or `clone()` it before editing it.",
    ),
    _p(
        "GD302",
        r"Function '(?P<node>\w+)' returned nan values in its (?P<index>\d+)(?:st|nd|rd|th) output",
        "Anomaly detection found NaN in the gradient computed by {node} (its output {index}): the "
        "forward op before it produced a value whose derivative is not finite (sqrt or log at 0 or "
        "below, division by zero, overflow).",
        hint="Guard the op's input (`torch.sqrt(x.clamp_min(1e-12))`, `torch.log(x + eps)`), check the "
        "data for NaN/Inf, or lower the learning rate.",
    ),
    _p(
        "GD209",
        r"unscale_\(\) has already been called on this optimizer since the last update\(\)",
        "scaler.unscale_(optimizer) ran twice before scaler.update(): the gradients would be divided by "
        "the scale twice.",
        hint="Call `scaler.unscale_(optimizer)` once per step, between backward() and clipping, then "
        "`scaler.step(optimizer)` and `scaler.update()`.",
    ),
    _p(
        "GD401",
        r"Expected to have finished reduction in the prior iteration before starting a new one",
        "Under DistributedDataParallel some parameters took no part in producing the loss, so their "
        "gradients were never reduced across ranks.",
        hint="Make every parameter take part in the loss, or build DDP with `find_unused_parameters=True`.",
    ),
    _p(
        "GD401",
        r"Expected to have finished reduction in the prior iteration before starting a new one",
        "DistributedDataParallel never received gradients for some parameters in the previous "
        "iteration, so their all-reduce never finished: those parameters took no part in the "
        "forward pass that produced the loss (an unused head or branch, or outputs left out of "
        "the loss), and this forward pass found the reduction still pending.",
        hint=(
            "Find the parameters the loss does not use (`graddoctor run` names them; "
            "TORCH_DISTRIBUTED_DEBUG=DETAIL makes DDP print them): use them in the loss, freeze "
            "them with `requires_grad_(False)` before wrapping the model in DDP, or pass "
            "`find_unused_parameters=True` if the set really changes from step to step."
        ),
    ),
]


# Every message `explain` knows, in the order they are tried.
ALL_PATTERNS: list[ErrorPattern] = PATTERNS + TRAINING_PATTERNS + WORKER_PATTERNS


def match(exc_type: str | None, message: str, source: str = "",
          context: str = "") -> tuple[ErrorPattern, dict[str, str]] | None:
    """The first pattern that fits; `source` is the user's failing line when known, `context`
    the traceback around the message (frames), when there is one."""
    for pattern in ALL_PATTERNS:
        if pattern.source_has and source and pattern.source_has not in source:
            continue
        if pattern.context is not None and not pattern.context.search(context):
            continue
        if pattern.exc_types and exc_type and exc_type.split(".")[-1] not in pattern.exc_types:
            continue
        found = pattern.regex.search(message)
        if found:
            groups = {k: v for k, v in found.groupdict().items() if v is not None}
            groups["view_note"] = ", through a view of it" if groups.get("view") else ""
            return pattern, groups
    return None
