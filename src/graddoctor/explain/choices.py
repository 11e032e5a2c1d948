"""Choosing between the causes of one message by its numbers, names and direction.

The same text has different causes in different programs: "Target 255 is out of
bounds" is a segmentation mask's boundary label, "Target 10" labels numbered from
1. Each function here takes the groups a pattern matched and returns (cause, hint),
or None for either to keep the pattern's own. Where the message alone cannot
decide, the cause lists the candidates and how to tell them apart: a confident fix
for the wrong cause makes the program worse.
"""

from __future__ import annotations

import re

_FLOATS = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16"}
_INTS = {"long", "int", "short", "byte", "char", "bool"}


def _dtype(name: str) -> str:
    """'Float', 'torch.FloatTensor', 'torch.cuda.HalfTensor' -> 'float', 'half'."""
    name = name.split(".")[-1].lower()
    return name[: -len("tensor")] if name.endswith("tensor") else name


def _method(kind: str) -> str:
    return {"float": ".float()", "double": ".double()", "half": ".half()", "long": ".long()", "int": ".int()",
            "bfloat16": ".bfloat16()"}.get(kind, f".to(torch.{kind})")


def target_index(groups: dict[str, str]) -> tuple[str | None, str | None]:
    """`Target N is out of bounds`: an ignore label, a mask's pixel value, or labels from 1."""
    t = int(groups["t"])
    if t < 0:
        return (
            f"A class-index loss got the label {t}. Negative labels are never classes: {t} is an "
            f"\"ignore\" label (padding, unlabelled pixels or tokens), and the loss only skips the "
            f"value of its `ignore_index`, -100 by default.",
            f"Tell the loss which label to skip: `nn.CrossEntropyLoss(ignore_index={t})` (or "
            f"`F.cross_entropy(..., ignore_index={t})`). Do not shift the labels: that moves every real "
            f"class too.",
        )
    if t == 255:
        return (
            "A class-index loss got the label 255. In segmentation masks 255 marks boundary or "
            "unlabelled pixels (PASCAL VOC, Cityscapes), or the mask still holds 0-255 pixel values "
            "instead of class indices.",
            "If 255 marks pixels to skip: `nn.CrossEntropyLoss(ignore_index=255)`. If the mask is an "
            "image of 0-255 values, map its values to class indices 0..C-1 when loading it (for a "
            "binary mask: `(mask > 127).long()`), and load it without interpolation "
            "(`InterpolationMode.NEAREST`).",
        )
    if t > 100:
        return (
            f"A class-index loss got the label {t}, far above the usual class count: the targets are "
            f"most likely pixel values of a mask image (0-255), not class indices. Resizing a mask with "
            f"bilinear interpolation also creates in-between values like this.",
            "Map the mask's pixel values to class indices 0..C-1 when loading it (a binary mask: "
            "`(mask > 127).long()`; a palette: a lookup from colour to class), and resize masks with "
            "`InterpolationMode.NEAREST`. Do not add outputs for pixel values.",
        )
    return (
        f"A class-index loss got the label {t}, outside [0, num_classes): labels numbered from 1 "
        f"(1..{t} for {t} classes, where the last one is out of range), or a classifier head with "
        f"fewer outputs ({t} or less) than there are classes.",
        f"If the labels run from 1 to {t}, shift them when loading: `y = y - 1`. If there are really "
        f"{t + 1} or more classes, build the last layer with that many outputs. `print(y.min(), y.max())` "
        f"tells which.",
    )


def found_dtype(groups: dict[str, str]) -> tuple[str | None, str | None]:
    """`Found dtype A but expected B` (a loss's backward): the target is A, the prediction B."""
    target, pred = _dtype(groups["a"]), _dtype(groups["b"])
    cause = (f"A loss's backward pass found its target of dtype {groups['a']} ({_FLOATS.get(target, target)}) "
             f"where the prediction is {groups['b']} ({_FLOATS.get(pred, pred)}); both must have one dtype.")
    if pred == "double":
        return (cause + " The prediction is float64: the model was made double (`model.double()`) or fed "
                "float64 data that a float64 model accepted.",
                "Use float32 throughout unless you need float64: `model.float()` and `x.float()` where the "
                "data is loaded; if float64 is intended, convert the target instead: `y.double()`.")
    return cause, f"Convert the target to the prediction's dtype: `loss_fn(out, y.to(out.dtype))` (here `y{_method(pred)}`)."


def expected_dtype(groups: dict[str, str]) -> tuple[str | None, str | None]:
    """`expected scalar type B but found A` / `Expected object of scalar type B but got scalar type A`."""
    want, got = _dtype(groups["exp"]), _dtype(groups["got"])
    arg = f" (argument `{groups['argname']}`)" if groups.get("argname") else ""
    if want == "long" and got in _FLOATS:
        return (f"An op that takes integer indices (a class-index loss's target, an embedding's ids) got a "
                f"{groups['got']} tensor{arg}.",
                "Convert the labels or ids to integers: `y = y.long()`; one-hot or probability targets "
                "stay float with the logits' shape instead.")
    if "half" in (want, got) or "bfloat16" in (want, got):
        low = want if want in ("half", "bfloat16") else got
        return (f"An op mixed {_FLOATS[low]} and float32 tensors: a model converted with `.half()` given "
                f"float32 inputs, or a float16 result of an `autocast` region combined with float32 tensors "
                f"outside it.",
                "Keep the model in float32 and run the forward pass under `torch.autocast(device_type=..., "
                "dtype=torch.float16)`, which casts per op; compute the loss inside the autocast block. If "
                "you converted the model by hand on purpose, convert its inputs the same way (`x.half()`).")
    if want == "double" and got == "float":
        return ("An op expected float64 (Double) tensors and got a float32 one: part of the model or a "
                "tensor made in `forward` is float64 (`model.double()`, `torch.tensor(numpy_array)` kept as "
                "a buffer or weight) while the input is float32.",
                "Find the float64 part and make it float32 (`model.float()`, `torch.from_numpy(a).float()`); "
                "if float64 is intended, convert the input: `x.double()`.")
    if want == "float" and got == "double":
        return (f"An op expected float32 (Float) tensors and got a float64 (Double) one{arg}: data that came "
                f"from numpy is float64 by default while the model's parameters are float32.",
                "Convert the data where it is loaded: `x = x.float()` (or `torch.from_numpy(a).float()`, "
                "`torch.tensor(a, dtype=torch.float32)`).")
    return (f"An op expected {groups['exp']} tensors and got a {groups['got']} one{arg}: two tensors of one "
            f"op have different dtypes.",
            f"Convert the odd one out to the dtype of the rest (`t{_method(want)}`).")


def either_double(groups: dict[str, str]) -> tuple[str | None, str | None]:
    """`expected Double tensor (got Float tensor)` (PyTorch 0.x): which side is which is not in the text."""
    want, got = _dtype(groups["exp"]), _dtype(groups["got"])
    return (f"An op got a {groups['got']} tensor where its first operand made it expect {groups['exp']}: "
            f"{_FLOATS.get(want, want)} and {_FLOATS.get(got, got)} tensors were mixed. This wording does not "
            f"say which one is the data: usually the input is float64 (numpy data, `torch.DoubleTensor`) while "
            f"the model is float32, or the model was made double while the data is float32.",
            "Print `x.dtype` and `next(model.parameters()).dtype` at the failing line, and convert the data "
            "to the model's dtype (`x.float()` for a float32 model).")


_SIZE = re.compile(r"\d+")


def _shape(text: str) -> list[int]:
    return [int(n) for n in _SIZE.findall(text.split("[", 1)[-1])]


def target_shape(groups: dict[str, str]) -> tuple[str | None, str | None]:
    """`Target size (T) must be the same as input size (I)` (BCE): squeeze, or masks with channels."""
    t, i = _shape(groups["t"]), _shape(groups["i"])
    if len(t) == len(i) and len(t) >= 3 and t[0] == i[0] and t[1] != i[1] and t[2:] == i[2:]:
        if t[1] == 3 and i[1] == 1:
            return (f"The loss got masks of shape {groups['t']} for predictions of shape {groups['i']}: the "
                    f"masks have 3 channels where the model predicts 1. The mask images were loaded as RGB.",
                    "Load each mask as one channel: `Image.open(path).convert(\"L\")` (then `(mask > 127)` "
                    "for a binary mask), or keep one channel: `mask[:, :1]`. Do not squeeze or reshape the "
                    "prediction.")
        return (f"The loss got a target with {t[1]} channels and a prediction with {i[1]}: the model's last "
                f"layer and the masks disagree on the number of classes or channels.",
                f"Build the last layer with out_channels={t[1]}, or load the masks with {i[1]} channel(s).")
    if t == [n for n in i if n != 1] or i == [n for n in t if n != 1]:
        return None, "Make the shapes equal: `loss_fn(out.squeeze(1), y)` or `loss_fn(out, y.float().unsqueeze(1))`."
    return (f"The loss got a target of shape {groups['t']} and an input of shape {groups['i']}; it compares "
            f"them element by element, so they must have the same shape.",
            "Reshape the target to the prediction's shape where the data is prepared, checking that each "
            "element still lines up with its prediction.")
