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

from graddoctor.explain.choices import either_double, expected_dtype, found_dtype, target_index, target_shape
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
        r"size mismatch, m1: \[(?P<n>\d+) x (?P<k>\d+)\], m2: \[(?P<k2>\d+) x (?P<m>\d+)\]",
        "A matrix product got an input whose last dimension is {k} where the weight expects {k2}: m1 "
        "is the input ({n}x{k}), m2 the weight ({k2}x{m}). In an `nn.Linear` that is a layer built with "
        "in_features={k2} receiving {k} features (the wording of PyTorch before 1.7).",
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
        choose=target_shape,
    ),
    _p(
        "GD601",
        r"(?:0D or 1D target tensor expected, )?multi-target not supported",
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
        r"stack expects each tensor to be equal size, but got \[(?P<a>[\d, ]*)\] at entry (?P<i>\d+) and "
        r"\[(?P<b>[\d, ]*)\] at entry (?P<j>\d+)",
        "Samples of one batch must all have the same size for the DataLoader's default collate to stack "
        "them, but sample {i} is [{a}] and sample {j} is [{b}]: images of different sizes (no resize or "
        "crop in the transforms), grayscale images among RGB ones, or sequences of different lengths.",
        hint="Give every sample one shape: resize or crop images in the dataset's transforms "
        "(`transforms.Resize((224, 224))`), convert images to one mode (`img.convert(\"RGB\")`); pad "
        "variable-length sequences in a `collate_fn` (`nn.utils.rnn.pad_sequence(batch, batch_first=True)`).",
    ),
    _p(
        "GD601",
        r"Caught (?P<inner>\w+) in DataLoader worker process (?P<w>\d+)",
        "The error happened in DataLoader worker process {w}, inside your dataset's `__getitem__`, its "
        "transforms or the collate function, and the message shown is only the wrapper: the real error "
        "({inner}) and its line are in the \"Original Traceback\" part printed below it. Most often it is "
        "samples of different sizes that the default collate cannot stack (\"stack expects each tensor "
        "to be equal size\"), or a bad index or file in the dataset.",
        hint="Read the \"Original Traceback\" part of the error, or run with `num_workers=0` so the error "
        "is raised in the main process with a traceback through your own dataset code.",
    ),
    _p(
        "GD601",
        r"Expected more than 1 value per channel when training, got input size (?P<s>" + _SIZE + r"|\[[\d, ]*\])",
        "A BatchNorm layer in training mode got a batch of one sample ({s}): it cannot compute a "
        "variance over one value per channel. Usually the last batch of an epoch holds a single sample "
        "(the dataset size is a multiple of the batch size plus one), or one sample was run through the "
        "model for prediction without `model.eval()`.",
        hint="Drop the incomplete last batch in training, `DataLoader(..., drop_last=True)`, and call "
        "`model.eval()` before predicting on single samples.",
    ),
    _p(
        "GD601",
        r"Expected (?P<wd>\d)-dimensional input for (?P=wd)-dimensional weight \[(?P<w>[\d, ]+)\], but got "
        r"(?P<gd>\d)-dimensional input of size \[(?P<i>[\d, ]+)\]",
        "A layer with weight [{w}] expects {wd}-dimensional input (batch, channels, ...) and got [{i}], "
        "{gd}-dimensional: a single sample without its batch dimension, or images without a channel "
        "dimension.",
        hint="Add the batch dimension to a single sample: `model(x.unsqueeze(0))`; give images a channel "
        "dimension: `x.unsqueeze(1)` for (N, H, W).",
        topic="layer",
    ),
    _p(
        "GD601",
        r"Expected (?P<a>\d)D \(unbatched\) or (?P<b>\d)D \(batched\) input to (?P<op>\w+), but got input of "
        r"size: \[(?P<i>[\d, ]+)\]",
        "A {op} layer expects ({a}-D) or ({b}-D, batched) input with channels before the spatial "
        "dimensions, but got [{i}]: images flattened into vectors (as for an MLP) reach a convolution, or "
        "the channel dimension is missing.",
        hint="Give the convolution (N, C, H, W) input: `x.view(x.size(0), 1, 28, 28)` for flattened "
        "single-channel 28x28 images, `x.unsqueeze(1)` for (N, H, W); flatten only after the "
        "convolutions.",
        topic="layer",
    ),
    _p(
        "GD601",
        r"shape '\[(?P<shape>[-\d, ]+)\]' is invalid for input of size (?P<n>\d+)",
        "`view`/`reshape` to [{shape}] cannot hold the {n} elements of its input: a size written by "
        "hand (`x.view(-1, 16 * 5 * 5)`) that no longer matches the feature map, after a change of "
        "image size, layers or batch.",
        hint="Flatten without hand-written sizes, `x = x.flatten(1)` (keeps the batch), and size the "
        "next layer from the real shape (`print(x.shape)` once, or `nn.LazyLinear(out_features)`).",
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
        r"mat1 and mat2 must have the same dtype\s*$",
        "A matrix product (an `nn.Linear`, `@`) got an input whose dtype differs from its weight's: data "
        "that came from numpy is float64 while the model is float32, or a half-precision tensor met "
        "float32 weights outside `torch.autocast`.",
        hint="Print `x.dtype` and the layer's `weight.dtype` at the failing line and convert the data "
        "where it is loaded (`x.float()` for a float32 model); for mixed precision use `torch.autocast` "
        "instead of converting tensors by hand.",
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
        choose=lambda g: expected_dtype({"exp": "Long", **g}),
    ),
    _p(
        "GD602",
        r"(?i:expected) (?:scalar type|object of scalar type) (?P<exp>\w+) but (?:found|got scalar type) "
        r"(?P<got>\w+)(?: for argument #\d+ '(?P<argname>\w+)')?",
        "An op expected {exp} tensors and got a {got} one.",
        topic="operands",
        choose=expected_dtype,
    ),
    _p(
        "GD602",
        r"expected (?P<exp>[A-Z]\w+) tensor \(got (?P<got>[A-Z]\w+) tensor\)",
        "An op expected {exp} tensors and got a {got} one.",
        choose=either_double,
    ),
    _p(
        "GD602",
        r"Input type \((?P<a>torch\.cuda\.\w+)\) and (?P<what>weight|bias) type \((?P<b>torch\.cuda\.\w+)\) should be the same",
        "A layer on the GPU got input of type {a} but its {what} is {b}.",
        topic="layer",
        choose=lambda g: expected_dtype({"exp": g["b"], "got": g["a"]}),
    ),
    _p(
        "GD602",
        r"Attempting to unscale FP16 gradients",
        "GradScaler found float16 gradients: the model's parameters themselves are float16 (`model.half()`). "
        "Mixed precision keeps the parameters in float32 and computes in float16 inside `torch.autocast`; "
        "GradScaler unscales float32 gradients only.",
        hint="Keep the model in float32 (drop `model.half()`) and run the forward pass and loss under "
        "`torch.autocast(device_type=\"cuda\", dtype=torch.float16)` with the GradScaler.",
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
        topic="loss",
        choose=found_dtype,
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
        r"Expected object of (?:device type|backend) (?P<a>\w+) but got (?:device type|backend) (?P<b>\w+)",
        "One op got tensors on two devices, {a} and {b} (the wording of PyTorch before 1.5). Usually the "
        "model was moved (`model.to(device)`) and the batch was not, or a tensor made inside `forward` "
        "was created without `device=`.",
        topic="devices",
    ),
    _p(
        "GD603",
        r"can't convert (?P<dev>[\w:]+) device type tensor to numpy",
        "`.numpy()` was called on a tensor on {dev}: numpy arrays live in host memory.",
        hint="Copy it to the CPU first, without its graph: `t.detach().cpu().numpy()` (for a logged "
        "number, `t.item()`).",
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
        choose=target_index,
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

_MEMORY: list[ErrorPattern] = [
    _p(
        "GD207",
        r"CUDA out of memory|CUDA error: out of memory|OutOfMemoryError|MPS backend out of memory",
        "The GPU ran out of memory. Two different causes, told apart by when it happens. At the first "
        "batches: the batch size, the model or the sequence length does not fit. After many iterations, "
        "or in evaluation: memory grows step after step because each iteration's graph is kept alive "
        "(`total_loss += loss` instead of `loss.item()`, a list of losses or outputs, an evaluation "
        "loop without `torch.no_grad()`).",
        hint="If it fails at once: lower the batch size, or use mixed precision (`torch.autocast`) and "
        "gradient checkpointing. If it fails later: accumulate `loss.item()`, evaluate under "
        "`torch.no_grad()`, and run `graddoctor run train.py`, which names the line that keeps the graph "
        "(GD207).",
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

TRAINING_PATTERNS: list[ErrorPattern] = _SHAPES + _DTYPES + _DEVICES + _TARGETS + _MEMORY + _SETUP
