"""GD506: a sequence layer that reads (sequence, batch, feature) given batches laid out (batch, sequence, feature).

The layers: `nn.RNN`/`LSTM`/`GRU`, `nn.MultiheadAttention`, `nn.Transformer` and its
encoder/decoder (layers too), built without `batch_first=True` (the outermost such
layer of a subtree: a `TransformerEncoder` speaks for its layers). Each gets a
forward pre-hook that reads the shape of its first input on its first `_CALLS`
calls, then removes itself. The batch size comes from the first `_LOSS_CALLS`
loss calls (dimension 0 of their targets) and from the DataLoader being read.

A verdict needs dimension 0 of the layer's input to be that batch size while
dimension 1 is neither the batch size nor any other dimension of the loss's
input or target (a sequence-first regression compares (S, N, F) with (S, N, F):
its dimension 1 shows up there). A batch as long as the sequence gives no verdict.
Dimension 1 of size 1 (one sequence) needs the DataLoader's batch size at dimension 0:
targets alone cannot tell a batch from the tokens of one sequence (PyTorch's LSTM
tagger gives `lstm(embeds.view(len(sentence), 1, -1))` one sentence, and its targets
are that sentence's tags, one per token).
Compiled models are left alone: adding and removing hooks would recompile them.
"""

from __future__ import annotations

import sys
import weakref
from dataclasses import dataclass, field

import torch
from torch import nn

from graddoctor.finding import Finding, Related
from graddoctor.internal import record_internal_error
from graddoctor.locate import Location, display_path, user_frame
from graddoctor.lossdata import patches
from graddoctor.lossdata.calls import shape_text
from graddoctor.lossdata.places import defined_at
from graddoctor.rules import make
from graddoctor.session.observer import BackwardEvent, Observer, StepEvent

_CALLS = 4  # input shapes read per layer
_LOSS_CALLS = 8  # loss calls read for the batch size
_SEQUENCE = (nn.RNNBase, nn.MultiheadAttention, nn.Transformer, nn.TransformerEncoder, nn.TransformerDecoder,
             nn.TransformerEncoderLayer, nn.TransformerDecoderLayer)


def seq_first(module: nn.Module) -> bool:
    """Whether a sequence layer reads (sequence, batch, feature): built without batch_first=True."""
    if isinstance(module, (nn.RNNBase, nn.MultiheadAttention, nn.Transformer)):
        return not module.batch_first
    if isinstance(module, (nn.TransformerEncoderLayer, nn.TransformerDecoderLayer)):
        return not module.self_attn.batch_first
    if isinstance(module, (nn.TransformerEncoder, nn.TransformerDecoder)):
        return len(module.layers) > 0 and seq_first(module.layers[0])
    return False


@dataclass
class _Layer:
    name: str
    kind: str
    built: Location | None
    shapes: list = field(default_factory=list)  # (input shape, the user's call, loader batch size)
    handle: object = None


class BatchDimensionMixUp(Observer):
    name = "batch_layout"
    codes = frozenset({"GD506"})

    def __init__(self) -> None:
        self.layers: dict[int, _Layer] = {}
        self.batches: dict[int, Location] = {}  # batch size seen at a loss (target dim 0) -> the loss line
        self.other_dims: set[int] = set()  # every other dimension of the losses' inputs and targets
        self.loss_calls = 0
        # by identity, weakly: a model freed (one per fold) may leave its id to the next one
        self._seen_roots: dict[int, weakref.ref] = {}
        self._optimizers: dict[int, weakref.ref] = {}  # by identity: a freed optimizer's id may be reused

    # --- lifetime -----------------------------------------------------------------------------

    def start(self, session) -> None:
        super().start(session)
        patches.listen(self)

    def stop(self) -> None:
        patches.unlisten(self)
        for layer in self.layers.values():
            self._unhook(layer)

    # --- finding the layers -----------------------------------------------------------------------

    def before_backward(self, event: BackwardEvent) -> None:
        if event.index == 0:
            self._discover()

    def before_step(self, event: StepEvent) -> None:
        seen = self._optimizers.get(id(event.optimizer))
        if seen is None or seen() is not event.optimizer:  # a new optimizer: maybe a new model (a second phase)
            self._optimizers = {key: ref for key, ref in self._optimizers.items() if ref() is not None}
            self._optimizers[id(event.optimizer)] = weakref.ref(event.optimizer)
            self._discover()

    def wake_in(self, rhythm) -> int | None:
        """Its session events look for models at the first backward and at a new optimizer's first step; a
        repeated iteration has neither (a new optimizer changes the pattern). The loss calls it reads are not
        session events: it always gets them."""
        return None

    def _discover(self) -> None:
        for root in self.session.models().values():
            seen = self._seen_roots.get(id(root))
            if seen is not None and seen() is root:
                continue
            self._seen_roots = {key: ref for key, ref in self._seen_roots.items() if ref() is not None}
            self._seen_roots[id(root)] = weakref.ref(root)
            if getattr(root, "_compiled_call_impl", None) is not None or hasattr(root, "_orig_mod"):
                continue
            owners: dict[int, tuple[nn.Module, str]] = {}
            taken: set[int] = set()
            for name, module in root.named_modules():
                for attr, child in module._modules.items():
                    if child is not None:
                        owners.setdefault(id(child), (module, attr))
                if id(module) in taken or not isinstance(module, _SEQUENCE):
                    continue
                taken.update(id(m) for m in module.modules())
                if id(module) in self.layers or not seq_first(module):
                    continue
                layer = _Layer(name or type(root).__name__, type(module).__name__, defined_at(module, owners))
                layer.handle = module.register_forward_pre_hook(self._hook(layer), with_kwargs=True)
                self.layers[id(module)] = layer

    def _hook(self, layer: _Layer):
        def hook(module, args, kwargs):
            if torch.compiler.is_compiling():
                return None
            try:
                x = args[0] if args else next(iter(kwargs.values()), None)
                if isinstance(x, torch.Tensor) and x.dim() == 3:
                    frame = user_frame(sys._getframe(1))
                    where = Location(frame.f_code.co_filename, frame.f_lineno) if frame is not None else None
                    loader = patches.last_loader()
                    batch = getattr(loader, "batch_size", None) if loader is not None else None
                    layer.shapes.append((tuple(x.shape), where, batch))
                if len(layer.shapes) >= _CALLS:
                    self._unhook(layer)
            except (RuntimeError, NotImplementedError):  # a tensor without a plain shape (nested): not this layer's
                self._unhook(layer)
            except Exception:  # our bug: recorded, never the user's failure
                self._unhook(layer)
                record_internal_error(self.session, "GD506 forward hook")
            return None

        hook._graddoctor_hidden_when_compiled = True  # type: ignore[attr-defined]
        return hook

    @staticmethod
    def _unhook(layer: _Layer) -> None:
        if layer.handle is not None:
            layer.handle.remove()
            layer.handle = None

    # --- the batch size, from the losses ------------------------------------------------------------

    def on_loss(self, name: str, args: tuple, kwargs: dict, frame) -> None:
        if self.loss_calls >= _LOSS_CALLS or not self.layers:
            return
        self.loss_calls += 1
        try:
            x = args[0] if args else kwargs.get("input")
            target = args[1] if len(args) > 1 else kwargs.get("target")
            if isinstance(target, torch.Tensor) and target.dim() >= 1:
                if target.shape[0] not in self.batches:
                    self.batches[target.shape[0]] = _loss_line(frame)
                self.other_dims.update(target.shape[1:])
            if isinstance(x, torch.Tensor):
                self.other_dims.update(x.shape[1:])
        except (RuntimeError, NotImplementedError):  # a tensor without a plain shape (nested): no more looking
            self.loss_calls = _LOSS_CALLS
        except Exception:  # our bug: recorded, never the user's failure
            self.loss_calls = _LOSS_CALLS
            record_internal_error(self.session, "GD506 loss call")

    @patches.ignored
    def on_loss_result(self, result, frame) -> None:
        """The loss's value says nothing about the batch layout."""

    # --- results ------------------------------------------------------------------------------------

    def findings(self) -> list[Finding]:
        out = []
        for layer in self.layers.values():
            verdict = self._judge(layer)
            if verdict is not None:
                out.append(verdict)
        return out

    def _judge(self, layer: _Layer) -> Finding | None:
        if not layer.shapes:
            return None
        for shape, _, loader_batch in layer.shapes:
            batch = set(self.batches) | ({loader_batch} if loader_batch else set())
            first, second = shape[0], shape[1]
            if first == second or first not in batch or second in batch or second in self.other_dims:
                return None
            if second == 1 and loader_batch != first:
                return None  # one sequence: the targets' dimension 0 may be its tokens, not a batch
        shape, call, loader_batch = layer.shapes[0]
        sources = [text for text, known in (("the batch size of the targets", shape[0] in self.batches),
                                            ("the DataLoader's batch size", loader_batch == shape[0])) if known]
        source = " and ".join(sources)
        message = (f"`{layer.name}` ({layer.kind}, built without batch_first=True) reads its input as (sequence, "
                   f"batch, feature), but was given {shape_text(shape)}: dimension 0 ({shape[0]}) is {source} and "
                   f"dimension 1 ({shape[1]}) is not. It treats the {shape[0]} samples of a batch as {shape[0]} time "
                   f"steps of {shape[1]} sequences, so every sample's output depends on the other samples and not on "
                   "its own sequence.")
        related = []
        if call is not None and call.file:
            related.append(Related(display_path(call.file), call.line, "the layer is called here"))
        loss = self.batches.get(shape[0])
        if loss is not None and loss.file:
            related.append(Related(display_path(loss.file), loss.line, f"the loss, with a batch of {shape[0]}"))
        where = layer.built if layer.built is not None and layer.built.file else call
        if where is None:
            return None
        evidence = {"input_shape": list(shape), "target_batch_sizes": sorted(self.batches),
                    "loader_batch_size": loader_batch, "calls": len(layer.shapes)}
        return make("GD506", message, related=related, subjects=[layer.name], evidence=evidence, **where.shown())



def _loss_line(frame) -> Location | None:
    frame = user_frame(frame)
    return Location(frame.f_code.co_filename, frame.f_lineno) if frame is not None else None
