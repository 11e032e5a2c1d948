"""Training errors outside autograd (GD601-GD605): shapes, dtypes, devices, targets, setup.

Over 300 lines because it is a table: one entry per message, grouped by code.

Each text was raised with torch 2.13 (tests/explain/test_training_errors.py
raises it again), except the CUDA-only ones (a GPU's device-side assert, a
conv's `torch.cuda.FloatTensor` type names), whose fragments are checked
against the strings of the installed torch library. A few older wordings
(`expected scalar type Long but found Float`) stay for tracebacks pasted from
older releases.
"""

from __future__ import annotations

from graddoctor.explain.pattern import ErrorPattern
from graddoctor.explain.pattern import pattern as _p

_SIZE = r"torch\.Size\(\[[^\]]*\]\)"
_CUDA_TYPE = r"torch\.cuda\.\w+"
_CPU_TYPE = r"torch\.\w+"  # \w stops at the dot of torch.cuda.X

_SHAPES: list[ErrorPattern] = [
    _p(
        "GD601",
        r"mat1 and mat2 shapes cannot be multiplied \((?P<n>\d+)x(?P<k>\d+) and (?P<k2>\d+)x(?P<m>\d+)\)",
        "A matrix product got an input whose last dimension is {k} where the weight expects {k2}: "
        "mat1 is the input ({n}x{k}, batch dimensions flattened), mat2 the weight ({k2}x{m}). In an "
        "`nn.Linear` that is a layer built with in_features={k2} receiving {k} features.",
        hint="Build the layer with in_features equal to the size of the input's last dimension "
        "(`nn.Linear({k}, ...)`), or fix what feeds it (a missing `flatten(1)`, a conv output size "
        "computed by hand).",
        topic="layer",
    ),
    _p(
        "GD601",
        r"Expected input batch_size \((?P<n>\d+)\) to match target batch_size \((?P<t>\d+)\)",
        "The loss got {n} predictions but {t} targets: the first dimension of the input and the "
        "target must be the batch. Often a `view(-1, k)` with the wrong k folded other dimensions "
        "into the batch, or one-hot / sequence targets were flattened differently from the logits.",
        hint="Give the loss input of shape (N, C) and target of shape (N,) for the same N: reshape "
        "with `x.flatten(1)` (keeps the batch) instead of `x.view(-1, k)`, and flatten logits and "
        "targets together for sequences (`out.reshape(-1, C)`, `y.reshape(-1)`).",
        topic="loss",
    ),
    _p(
        "GD601",
        r"Using a target size \((?P<t>" + _SIZE + r")\) that is different to the input size \((?P<i>" + _SIZE + r")\)",
        "The loss got a target of shape {t} and an input of shape {i}; it compares them element by "
        "element, so they must have the same shape. A model with one output gives (N, 1) while the "
        "labels are (N,).",
        hint="Make the shapes equal: `loss_fn(out.squeeze(1), y)` or `loss_fn(out, y.float().unsqueeze(1))`.",
        topic="loss",
    ),
    _p(
        "GD601",
        r"Target size \((?P<t>" + _SIZE + r")\) must be the same as input size \((?P<i>" + _SIZE + r")\)",
        "The loss got a target of shape {t} and an input of shape {i}; binary cross-entropy compares "
        "them element by element, so they must have the same shape. A model with one output gives "
        "(N, 1) while the labels are (N,).",
        hint="Make the shapes equal: `loss_fn(out.squeeze(1), y)` or `loss_fn(out, y.float().unsqueeze(1))`.",
        topic="loss",
    ),
    _p(
        "GD601",
        r"0D or 1D target tensor expected, multi-target not supported",
        "A class-index loss (CrossEntropyLoss, NLLLoss) got a target with two or more dimensions: it "
        "expects one class index per sample, shape (N,) of dtype long. A target of shape (N, 1) "
        "needs `.squeeze(1)`; one-hot or probability targets must be float with the input's exact shape.",
        hint="Pass class indices of shape (N,): `y.squeeze(1).long()` or `y.argmax(1)` for one-hot "
        "labels; or keep probability targets as float (N, C), the same shape as the logits.",
        topic="loss",
    ),
    _p(
        "GD601",
        r"Expected target size \[(?P<exp>[\d, ]+)\], got \[(?P<got>[\d, ]+)\]",
        "A class-index loss got input with extra dimensions (N, C, d1, ...) and a target of shape "
        "[{got}] where [{exp}] was expected: the classes must be dimension 1 of the input, and the "
        "target has the input's shape without it.",
        hint="For sequence logits of shape (N, L, C), pass `out.permute(0, 2, 1)` with targets "
        "(N, L), or flatten both: `loss_fn(out.reshape(-1, C), y.reshape(-1))`.",
        topic="loss",
    ),
    _p(
        "GD601",
        r"For 1D input, 1D target must have size 1, but got target size: (?P<t>\d+)",
        "The loss got a 1-D input (one sample's class scores, no batch dimension) and {t} targets: "
        "the batch dimension of the logits was lost (a `squeeze()`, a mean over the batch, a "
        "single sample).",
        hint="Keep the logits 2-D, (N, C): use `squeeze(-1)` on named dimensions instead of "
        "`squeeze()`, and `unsqueeze(0)` a single sample.",
        topic="loss",
    ),
    _p(
        "GD601",
        r"Given groups=\d+, weight of size \[(?P<w>[\d, ]+)\], expected input\[(?P<i>[\d, ]+)\] to have "
        r"(?P<c>\d+) channels, but got (?P<g>\d+) channels instead",
        "A convolution with weight [{w}] expects {c} input channels in dimension 1, but its input "
        "[{i}] has {g} there. Images loaded as (N, H, W, C) instead of (N, C, H, W), or "
        "in_channels not matching the previous layer, give this.",
        hint="Build the conv with in_channels equal to the input's dimension 1, or put channels "
        "first (`x.permute(0, 3, 1, 2)` for (N, H, W, C) images).",
        topic="layer",
    ),
    _p(
        "GD601",
        r"input\.size\(-1\) must be equal to input_size\. Expected (?P<e>\d+), got (?P<g>\d+)",
        "A recurrent layer built with input_size={e} got inputs whose last dimension is {g}.",
        hint="Build the RNN/LSTM/GRU with input_size={g} (the features per time step), or check "
        "`batch_first`: without it the input is (L, N, H_in).",
        topic="layer",
    ),
    _p(
        "GD601",
        r"Given normalized_shape=\[(?P<n>[\d, ]*)\], expected input with shape \[\*, (?P<e>[\d, ]*)\], "
        r"but got input of size ?\[(?P<g>[\d, ]*)\]",
        "A LayerNorm built for normalized_shape=[{n}] got input of size [{g}]: its trailing "
        "dimensions must be [{e}].",
        hint="Build the LayerNorm with the size of the input's last dimension(s).",
        topic="layer",
    ),
    _p(
        "GD601",
        r"running_mean should contain (?P<g>\d+) elements not (?P<e>\d+)",
        "A BatchNorm built with num_features={e} got inputs with {g} channels in dimension 1.",
        hint="Build the BatchNorm with num_features equal to the channels of the layer before it ({g}).",
        topic="layer",
    ),
    _p(
        "GD601",
        r"Expected size for first two dimensions of batch2 tensor to be: \[(?P<e>[\d, ]+)\] but got: \[(?P<g>[\d, ]+)\]",
        "A batched matrix product got a second operand whose first two dimensions are [{g}] where "
        "[{e}] (the batch size and the first operand's last dimension) was needed.",
        hint="Transpose or reshape the second operand so that its dimension 1 equals the first's "
        "last dimension (`k.transpose(1, 2)` for attention scores).",
    ),
    _p(
        "GD601",
        r"The size of tensor a \((?P<a>\d+)\) must match the size of tensor b \((?P<b>\d+)\) at "
        r"non-singleton dimension (?P<dim>\d+)",
        "Two tensors combined element-wise cannot be broadcast: dimension {dim} is {a} in one and "
        "{b} in the other (sizes must be equal, or 1).",
        hint="Reshape one operand so the sizes agree (`unsqueeze`/`squeeze` the dimension, or "
        "transpose), checking that the result has the shape you mean.",
        topic="operands",
    ),
]

_DTYPES: list[ErrorPattern] = [
    _p(
        "GD602",
        r"mat1 and mat2 must have the same dtype, but got (?P<a>\w+) and (?P<b>\w+)",
        "A matrix product got an input of dtype {a} and a weight of dtype {b}. Data that came from "
        "numpy is float64 (Double) by default while the model's parameters are float32 (Float).",
        hint="Convert the data where it is loaded: `x = x.float()` (or "
        "`torch.from_numpy(a).float()`, `torch.tensor(a, dtype=torch.float32)`).",
        topic="layer",
    ),
    _p(
        "GD602",
        r"expected m1 and m2 to have the same dtype, but got: (?P<a>\w+) != (?P<b>\w+)",
        "A matrix product got operands of dtypes {a} and {b}.",
        hint="Convert one operand (`x.float()`, `w.to(x.dtype)`), usually the data loaded from numpy (float64).",
        topic="operands",
    ),
    _p(
        "GD602",
        r"expected target dtype to be Long or Byte, but got (?P<got>\w+)",
        "A class-index loss (CrossEntropyLoss, NLLLoss) got targets of dtype {got}; it needs class "
        "indices as integers (long).",
        hint="Convert the labels: `y = y.long()`; if they are one-hot or probabilities, give float "
        "targets with the logits' shape (N, C) instead.",
        topic="loss",
    ),
    _p(
        "GD602",
        r"expected scalar type Long but found (?P<got>\w+)",
        "A class-index loss (CrossEntropyLoss, NLLLoss) got targets of dtype {got}; it needs class "
        "indices as integers (long).",
        hint="Convert the labels: `y = y.long()`.",
        topic="loss",
    ),
    _p(
        "GD602",
        r"expected scalar type (?P<exp>\w+) but found (?P<got>\w+)",
        "An op expected {exp} tensors and got a {got} one: the data, a target or a loss weight has "
        "a different dtype from the model.",
        hint="Convert the odd one out to the model's dtype (`.float()`), usually data loaded from numpy (float64).",
        topic="operands",
    ),
    _p(
        "GD602",
        r"Input type \((?P<a>(?!torch\.cuda)[\w.]+)\) and (?P<what>weight|bias) type \((?P<b>(?!torch\.cuda)[\w.]+)\) should be the same",
        "A convolution got input of type {a} but its {what} is {b}.",
        hint="Convert the input to the layer's dtype (`x = x.float()`).",
        topic="layer",
    ),
    _p(
        "GD602",
        r"RNN input dtype \((?P<a>[\w.]+)\) does not match weight dtype \((?P<b>[\w.]+)\)",
        "A recurrent layer with {b} weights got input of dtype {a}.",
        hint="Convert the input where it is loaded (`x = x.float()`).",
        topic="layer",
    ),
    _p(
        "GD602",
        r"mixed dtype \(CPU\): all inputs must share same datatype",
        "A normalisation layer (BatchNorm, LayerNorm, GroupNorm) got input of a different dtype from "
        "its weights (float64 data into a float32 model, usually).",
        hint="Convert the input where it is loaded (`x = x.float()`).",
        topic="layer",
    ),
    _p(
        "GD602",
        r"Found dtype (?P<a>\w+) but expected (?P<b>\w+)",
        "A loss's target has dtype {a} while its input is {b}; the backward pass cannot mix them.",
        hint="Convert the target to the prediction's dtype: `loss_fn(out, y.float())`.",
        topic="loss",
    ),
    _p(
        "GD602",
        r"result type (?P<a>\w+) can't be cast to the desired output type (?P<b>\w+)",
        "An op computed a {a} result that it had to store in a {b} tensor: for a loss, an integer "
        "target given to a loss on probabilities or logits (BCEWithLogitsLoss needs float targets).",
        hint="Convert the target: `loss_fn(out, y.float())`.",
        topic="loss",
    ),
    _p(
        "GD602",
        r"(?i:only) Tensors of floating point (?:and complex )?dtype can require gradients",
        "`requires_grad` was asked of an integer (or bool) tensor: only floating point tensors can "
        "have gradients, so integer data cannot be a parameter or a differentiable input.",
        hint="Create it as float (`torch.zeros(n, dtype=torch.float32, requires_grad=True)`, "
        "`nn.Parameter(t.float())`); integer inputs such as token ids need no gradient.",
        topic="operands",
    ),
    _p(
        "GD602",
        r"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
        r"Long, Int; but got (?P<got>[\w.]+) instead",
        "An embedding was given {got} indices: token or category ids must be integers.",
        hint="Convert the ids: `ids = ids.long()`.",
        topic="layer",
    ),
]

_DEVICES: list[ErrorPattern] = [
    _p(
        "GD603",
        r"Expected all tensors to be on the same device, but got (?P<arg>\w+) is on (?P<a>[\w:]+), "
        r"different from other tensors on (?P<b>[\w:]+)",
        "One op got tensors on two devices: its argument `{arg}` is on {a}, the others on {b}. "
        "Usually the model was moved (`model.to(device)`) and the batch was not, or a tensor made "
        "inside `forward` was created without `device=`.",
        topic="devices",
    ),
    _p(
        "GD603",
        r"Expected all tensors to be on the same device, but found at least two devices, (?P<a>[\w:]+) and (?P<b>[\w:]+)",
        "One op got tensors on two devices, {a} and {b}. Usually the model was moved "
        "(`model.to(device)`) and the batch was not, or a tensor made inside `forward` was "
        "created without `device=`.",
        topic="devices",
    ),
    _p(
        "GD603",
        r"Tensor on device (?P<a>[\w:]+) is not on the expected device (?P<b>[\w:]+)!",
        "One op got tensors on two devices: one on {a} where {b} was expected. A `meta` device means "
        "a model built under `torch.device('meta')` that was never materialised; otherwise the model "
        "and the data are on different devices.",
        hint="Put the model and its inputs on one device: `model.to(device)` once and "
        "`x, y = x.to(device), y.to(device)` per batch; a model built on `meta` must be "
        "materialised with `model.to_empty(device=...)` and its weights initialised.",
        topic="devices",
    ),
    _p(
        "GD603",
        r"Input type \((?P<a>" + _CUDA_TYPE + r")\) and (?:weight|bias) type \((?P<b>" + _CPU_TYPE + r")\) should be the same",
        "A convolution got its input on the GPU ({a}) while its weights are on the CPU ({b}): the "
        "model was not moved.",
        hint="Move the model once before training: `model.to(device)`.",
        topic="devices",
    ),
    _p(
        "GD603",
        r"Input type \((?P<a>" + _CPU_TYPE + r")\) and (?:weight|bias) type \((?P<b>" + _CUDA_TYPE + r")\) should be the same",
        "A convolution got its input on the CPU ({a}) while its weights are on the GPU ({b}): the "
        "batch was not moved to the model's device.",
        hint="Move each batch in the loop: `x = x.to(device)`.",
        topic="devices",
    ),
]

_TARGETS: list[ErrorPattern] = [
    _p(
        "GD604",
        r"Target (?P<t>-?\d+) is out of bounds",
        "A class-index loss got the label {t}, outside [0, num_classes): labels numbered from 1, or "
        "a classifier head with fewer outputs than there are classes.",
        topic="classes",
    ),
    _p(
        "GD604",
        r"index out of range in self",
        "An index was at or beyond the size of the dimension it indexes: most often an `nn.Embedding` "
        "given a token id >= num_embeddings (a vocabulary grown after the model was built, a padding "
        "or special id past the end), or a negative id.",
        hint="Build the embedding with `num_embeddings` = the largest id + 1 (`len(vocab)` after "
        "adding special tokens), and check the ids the tokenizer produces.",
        exc_types=("IndexError",),
        topic="embedding",
    ),
    _p(
        "GD604",
        r"Class values must be smaller than num_classes",
        "`F.one_hot` got a class value >= num_classes: labels numbered from 1, or num_classes too small.",
        hint="Pass `num_classes` = the largest label + 1, or shift labels numbered from 1 (`y - 1`).",
    ),
    _p(
        "GD604",
        r"CUDA error: device-side assert triggered",
        "A CUDA kernel's own check failed. In training this is most often a class label outside "
        "[0, num_classes) in a loss, or a token id >= num_embeddings in an embedding; CUDA reports "
        "it late, so the traceback may point at a later line.",
        hint="Run once on the CPU (or with CUDA_LAUNCH_BLOCKING=1) to get the exact error and line; "
        "check `y.min() >= 0 and y.max() < num_classes` for the loss's labels.",
    ),
]

_SETUP: list[ErrorPattern] = [
    _p(
        "GD605",
        r"optimizer got an empty parameter list",
        "An optimizer was built from no parameters: a `model.parameters()` generator that an earlier "
        "optimizer (or a loop) already used up, a filter on `requires_grad` when every parameter is "
        "frozen, or a model whose layers are not registered (kept in a plain list).",
        hint="Build the parameter list once as a list (`params = list(model.parameters())`) and give "
        "it to the optimizer; if everything is frozen, unfreeze what should train; keep layers in "
        "`nn.ModuleList`, not a plain list.",
        topic="optimizer",
    ),
    _p(
        "GD605",
        r"cannot assign '(?P<type>[\w.]+)' as parameter '(?P<name>\w+)' \(torch\.nn\.Parameter or None expected\)",
        "A {type} was assigned to `{name}`, which the module registers as a Parameter: only an "
        "`nn.Parameter` (or None) can take its place.",
        hint="Wrap it: `layer.{name} = nn.Parameter(tensor)`, or copy values into the existing "
        "parameter: `with torch.no_grad(): layer.{name}.copy_(tensor)`.",
        topic="attribute",
    ),
    _p(
        "GD605",
        r"cannot assign '(?P<type>[\w.]+)' object to parameter '(?P<name>\w+)' \(torch\.nn\.Parameter or None required\)",
        "`register_parameter('{name}', ...)` was given a {type}, not an `nn.Parameter`.",
        hint="Wrap it: `self.register_parameter('{name}', nn.Parameter(tensor))`.",
    ),
    _p(
        "GD605",
        r"params argument given to the optimizer should be an iterable of Tensors or dicts, but got (?P<type>[\w.]+)",
        "An optimizer was given a single {type} where it expects an iterable of parameters.",
        hint="Pass a list: `torch.optim.SGD([w], lr=...)`, or `model.parameters()`.",
    ),
    _p(
        "GD605",
        r"optimizer can only optimize Tensors, but one of the params is (?P<type>[\w.]+)",
        "An optimizer was given a {type} among its parameters: a dict of parameters (its keys are "
        "read), `named_parameters()` (name, tensor pairs), or a module.",
        hint="Pass the tensors: `model.parameters()`, or `[p for _, p in model.named_parameters()]`.",
    ),
    _p(
        "GD605",
        r"some parameters appear in more than one parameter group",
        "Two parameter groups of one optimizer share parameters, so each would be updated twice per step.",
        hint="Give each parameter to one group: build the groups from disjoint parts of the model "
        "(`model.backbone.parameters()`, `model.head.parameters()`).",
    ),
]

TRAINING_PATTERNS: list[ErrorPattern] = _SHAPES + _DTYPES + _DEVICES + _TARGETS + _SETUP
