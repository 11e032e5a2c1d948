"""What a live exception's frames show: the layer or loss that raised, and the shapes, dtypes and devices it got.

`graddoctor run` (and `explain(exc)`) holds the exception itself, so the
frames of its traceback still hold their locals: the module whose forward
raised (`self`), the loss function's `input` and `target`. Reading them turns
PyTorch's "mat1 and mat2" into "`head` is Linear(in_features=64, ...) and got
(32, 128)". Only shapes, dtypes, devices and small summaries (a label range)
are read, never a tensor's values shown; anything odd yields no evidence
rather than an error.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from types import FrameType, TracebackType

from graddoctor.finding import Related
from graddoctor.locate import display_path, is_user_file


@dataclass
class Evidence:
    """Sentences to add to the cause, and what they concern."""

    facts: list[str] = field(default_factory=list)
    subjects: list[str] = field(default_factory=list)
    related: list[Related] = field(default_factory=list)


def gather(topic: str | None, tb: TracebackType | None) -> Evidence:
    """The evidence for `topic` (see ErrorPattern.topic) in a traceback; empty when there is none."""
    evidence = Evidence()
    frames = [frame for frame, _ in traceback.walk_tb(tb)]
    evidence.related = _callers(tb)
    if topic is None or not frames:
        return evidence
    try:
        _READERS[topic](frames, evidence)
    except Exception:  # evidence is a bonus: a frame we cannot read leaves the plain explanation
        evidence.facts, evidence.subjects = [], []
    return evidence


# --- frames ---------------------------------------------------------------------------------


def _modules(frames: list[FrameType]) -> list:
    """The nn.Modules whose forward is on the stack, outermost first, each once."""
    from torch import nn

    out: list = []
    for frame in frames:
        owner = frame.f_locals.get("self")
        if isinstance(owner, nn.Module) and all(owner is not m for m in out):
            out.append(owner)
    return out


def _module_name(module, modules: list) -> str | None:
    """`module`'s name inside the outermost module on the stack (the user's model)."""
    for root in modules:
        if root is module:
            continue
        for name, sub in root.named_modules():
            if sub is module and name:
                return name
    return None


def _describe_module(module) -> str:
    # extra_repr, not repr: a container's repr runs over many lines.
    return f"{type(module).__name__}({module.extra_repr()})"


def _tensor(t) -> str:
    shape = "(" + ", ".join(str(s) for s in t.shape) + ("," if t.dim() == 1 else "") + ")"
    return f"shape {shape}, {str(t.dtype).replace('torch.', '')}, on {t.device}"


def _loss_frame(frames: list[FrameType]):
    """The innermost torch frame holding a loss's `input` and `target` tensors."""
    import torch

    for frame in reversed(frames):
        found = frame.f_locals
        if isinstance(found.get("input"), torch.Tensor) and isinstance(found.get("target"), torch.Tensor):
            return frame
    return None


def _layer(frames: list[FrameType]):
    """The innermost module on the stack that is not a loss, with the tensor it received."""
    import torch

    modules = _modules(frames)
    for frame in reversed(frames):
        owner = frame.f_locals.get("self")
        # A library layer's own forward: a user's forward holds many tensors, none of them "the input".
        if frame.f_code.co_name != "forward" or is_user_file(frame.f_code.co_filename):
            continue
        if owner is None or not any(owner is m for m in modules) or "target" in frame.f_locals:
            continue
        received = frame.f_locals.get("input")
        if not isinstance(received, torch.Tensor):
            received = next((v for k, v in frame.f_locals.items() if k != "self" and isinstance(v, torch.Tensor)), None)
        return owner, received, modules
    return None, None, modules


def _callers(tb: TracebackType | None) -> list[Related]:
    """The user's lines that led to the failing one (`model(x)` in the loop, for a forward that raised)."""
    users = [(frame, line) for frame, line in traceback.walk_tb(tb) if is_user_file(frame.f_code.co_filename)]
    out = []
    for frame, line in reversed(users[:-1]):
        out.append(Related(display_path(frame.f_code.co_filename), line, f"called from {frame.f_code.co_name}"))
    return out[:3]


# --- one reader per topic ---------------------------------------------------------------------


def _read_layer(frames: list[FrameType], evidence: Evidence) -> None:
    layer, received, modules = _layer(frames)
    if layer is None:
        return
    name = _module_name(layer, modules)
    params = list(layer.parameters(recurse=False))
    what = f"`{name}`, a {_describe_module(layer)}" if name else f"a {_describe_module(layer)}"
    sentence = f"The layer is {what}"
    if params:
        sentence += f", with {str(params[0].dtype).replace('torch.', '')} weights on {params[0].device}"
    if received is not None:
        sentence += f"; it received input of {_tensor(received)}"
    evidence.facts.append(sentence + ".")
    if name:
        evidence.subjects.append(name)


def _read_loss(frames: list[FrameType], evidence: Evidence) -> None:
    frame = _loss_frame(frames)
    if frame is None:
        return
    found = frame.f_locals
    evidence.facts.append(
        f"The loss ({frame.f_code.co_name}) got input of {_tensor(found['input'])} "
        f"and target of {_tensor(found['target'])}."
    )


def _read_classes(frames: list[FrameType], evidence: Evidence) -> None:
    frame = _loss_frame(frames)
    if frame is None:
        return
    logits, labels = frame.f_locals["input"], frame.f_locals["target"]
    classes = logits.shape[1] if logits.dim() >= 2 else logits.shape[0]
    ignore = frame.f_locals.get("ignore_index", -100)
    kept = labels[labels != ignore] if isinstance(ignore, int) else labels
    if kept.device.type == "meta" or kept.numel() == 0:
        return
    low, high = int(kept.min()), int(kept.max())
    sentence = (f"The logits have {classes} classes (valid labels 0 to {classes - 1}); this batch's labels "
                f"run from {low} to {high}.")
    if low < 0:
        sentence += f" {low} is no class: if it marks samples to skip, pass `ignore_index={low}` to the loss."
    elif high > 100 and high > 4 * classes:
        sentence += " Labels this large are a mask's pixel values (0-255), not class indices: map them to 0..C-1."
    elif low >= 1 and high == classes:
        sentence += " The labels look numbered from 1: shift them (`y - 1`)."
    elif low >= 0 and high >= classes:
        sentence += f" If there really are {high + 1} classes, the head needs {high + 1} outputs."
    evidence.facts.append(sentence)


def _read_embedding(frames: list[FrameType], evidence: Evidence) -> None:
    import torch

    layer, _, modules = _layer(frames)
    for frame in reversed(frames):
        ids, weight = frame.f_locals.get("input"), frame.f_locals.get("weight")
        if isinstance(ids, torch.Tensor) and isinstance(weight, torch.Tensor) and not ids.is_floating_point():
            break
    else:
        return
    if ids.numel() == 0 or ids.device.type == "meta":
        return
    name = _module_name(layer, modules) if layer is not None else None
    where = f"The embedding `{name}`" if name else "The embedding"
    evidence.facts.append(
        f"{where} has num_embeddings={weight.shape[0]} (valid ids 0 to {weight.shape[0] - 1}); "
        f"this batch's ids run from {int(ids.min())} to {int(ids.max())}."
    )
    if name:
        evidence.subjects.append(name)


def _read_devices(frames: list[FrameType], evidence: Evidence) -> None:
    layer, received, modules = _layer(frames)
    loss = _loss_frame(frames)
    if loss is not None and loss.f_locals["input"].device != loss.f_locals["target"].device:
        _read_loss(frames, evidence)
        return
    if layer is None:
        return
    devices = sorted({str(p.device) for p in layer.parameters()})
    name = _module_name(layer, modules)
    what = f"`{name}` ({type(layer).__name__})" if name else type(layer).__name__
    sentence = f"{what} has its parameters on {', '.join(devices) or 'no device'}"
    if received is not None:
        sentence += f"; its input is on {received.device}"
    evidence.facts.append(sentence + ".")
    if name:
        evidence.subjects.append(name)


def _read_optimizer(frames: list[FrameType], evidence: Evidence) -> None:
    import types

    users = [f for f in frames if is_user_file(f.f_code.co_filename)]
    if not users:
        return
    scope = {**users[-1].f_globals, **users[-1].f_locals}
    used_up = [n for n, v in scope.items() if isinstance(v, types.GeneratorType) and v.gi_frame is None
               and v.gi_code.co_name == "parameters"]
    if used_up:
        names = ", ".join(f"`{n}`" for n in used_up)
        evidence.facts.append(f"{names} is a `parameters()` generator that was already read to the end: "
                              "a generator can be iterated once.")


def _read_attribute(frames: list[FrameType], evidence: Evidence) -> None:
    from torch import nn

    for frame in reversed(frames):
        owner = frame.f_locals.get("self")
        if isinstance(owner, nn.Module) and frame.f_code.co_name == "__setattr__":
            evidence.facts.append(f"The module is a {_describe_module(owner)}.")
            return


_READERS = {
    "layer": _read_layer,
    "loss": _read_loss,
    "classes": _read_classes,
    "embedding": _read_embedding,
    "devices": _read_devices,
    "optimizer": _read_optimizer,
    "attribute": _read_attribute,
    "operands": lambda frames, evidence: None,  # a bare `a + b` in user code: its message has the sizes
}
