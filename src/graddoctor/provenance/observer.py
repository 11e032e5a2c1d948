"""Deep mode: the provenance observer that names the line that cut the graph.

While deep mode is on (the first observed steps of `graddoctor run`,
`watch(deep=True)`), a `Recorder` TorchFunctionMode is pushed and the two
entry points it cannot see are wrapped (`torch.inference_mode` entry/exit and
`torch.from_numpy`). Everything is removed at `stop()` (or once the deep
window has passed), also when the user's code raised.

Other observers ask `session.cuts(loss)` which cuts separated parameters from
a loss; this observer answers, and explains the user's exception with what
it recorded (GD101, GD107, GD108, GD112).
"""

from __future__ import annotations

import re
import sys

import torch

from graddoctor.finding import Finding, Related
from graddoctor.graph.checks import cut_history
from graddoctor.graph.walk import trace
from graddoctor.locate import Location
from graddoctor.provenance import carried
from graddoctor.provenance.records import NUMBER, Cut
from graddoctor.provenance.recorder import Recorder
from graddoctor.rules import make
from graddoctor.session.observer import BackwardEvent, Observer, StepEvent
from graddoctor.session.patches import Patcher

_INPLACE_MESSAGE = re.compile(
    r"\[(?P<type>[\w.]+) \[(?P<shape>[\d, ]*)\]\], which is output (?P<out>\d+) of (?P<node>\w+), "
    r"is at version (?P<version>\d+); expected version (?P<expected>\d+)"
)


def _loss_tensors(loss) -> list[torch.Tensor]:
    items = loss if isinstance(loss, (list, tuple)) else [loss]
    return [t for t in items if isinstance(t, torch.Tensor)]


def _related(loc: Location | None, note: str) -> list[Related]:
    if loc is None or not loc.file:
        return []
    shown = loc.shown()
    return [Related(shown["file"], shown["line"], note)]


class ProvenanceObserver(Observer):
    """Records cuts, in-place edits and inference tensors for `deep_steps` optimizer steps."""

    name = "provenance"

    def __init__(self, deep_steps: int | None = None) -> None:
        self.deep_steps = deep_steps  # None: for the whole session
        self.recorder = Recorder()
        self._patcher = Patcher()
        self._active = False
        self._suspended = False  # popped for the length of an optimizer step
        self._loss_cuts: dict[int, Cut] = {}  # cuts whose output reached an observed loss
        self._found: list[Finding] = []
        self._last_backward: BackwardEvent | None = None

    # --- lifetime -----------------------------------------------------------------------------

    def start(self, session) -> None:
        super().start(session)
        if self.deep_steps is not None and self.deep_steps <= 0:
            return
        recorder = self.recorder

        def wrap_enter(original):
            def __enter__(ctx):
                result = original(ctx)
                if getattr(ctx, "mode", True):
                    recorder.enter_inference(sys._getframe(1))
                return result
            return __enter__

        def wrap_exit(original):
            def __exit__(ctx, *exc):
                if getattr(ctx, "mode", True):
                    recorder.exit_inference()
                return original(ctx, *exc)
            return __exit__

        def wrap_from_numpy(original):
            def from_numpy(array):
                out = original(array)
                recorder.tainted_from_number(array, out)
                return out
            return from_numpy

        try:
            self._patcher.wrap(torch.autograd.grad_mode.inference_mode, "__enter__", wrap_enter)
            self._patcher.wrap(torch.autograd.grad_mode.inference_mode, "__exit__", wrap_exit)
            self._patcher.wrap(torch, "from_numpy", wrap_from_numpy)
            recorder.__enter__()
            self._active = True
        except BaseException:
            self._patcher.restore()
            raise

    def stop(self) -> None:
        self._pause()

    def _pause(self) -> None:
        """Pop the mode and undo the wrappers; what was recorded stays for the report."""
        try:
            if self._active:
                self._active = False
                if self._suspended:
                    self._suspended = False
                else:
                    _pop_mode(self.recorder)
        finally:
            self._patcher.restore()
            for region in self.recorder.inference_regions:
                region.close()
            if self.recorder._region is not None:
                self.recorder._region.close()

    @property
    def active(self) -> bool:
        return self._active

    # --- events -------------------------------------------------------------------------------

    def before_backward(self, event: BackwardEvent) -> None:
        if not self._active:
            return
        self._resume()  # an optimizer step that raised never reached after_step
        recorder = self.recorder
        losses = _loss_tensors(event.loss)
        for loss in losses:
            for cut_id in recorder.taint_of(loss):
                self._loss_cuts.setdefault(cut_id, recorder.cuts[cut_id])
        carried.tag_named_tensors(event.index, event.where)
        self._check_data_writes(losses, event)
        recorder.forward_seen = False
        recorder.used_since_backward.clear()
        self._last_backward = event

    def before_step(self, event: StepEvent) -> None:
        # An optimizer step is torch's own no-grad work, thousands of small ops for a
        # for-loop optimizer: step out of the way instead of looking at each.
        if self._active and not self._suspended and _on_top(self.recorder):
            self.recorder.__exit__(None, None, None)
            self._suspended = True

    def after_step(self, event: StepEvent) -> None:
        self.recorder.step = self.session.step
        self._resume()
        if self._active and self.deep_steps is not None and self.session.step >= self.deep_steps:
            self._pause()

    def _resume(self) -> None:
        if self._suspended:
            self._suspended = False
            self.recorder.__enter__()

    # --- answers to other observers ------------------------------------------------------------

    def cuts(self, loss=None) -> list[Cut]:
        """The cuts whose output reached `loss` (or any observed loss when None)."""
        if loss is None:
            return list(self._loss_cuts.values())
        ids: set[int] = set()
        for tensor in _loss_tensors(loss):
            ids |= self.recorder.taint_of(tensor)
        return [self.recorder.cuts[i] for i in sorted(ids)]

    # --- GD109: .data writes between forward and backward --------------------------------------

    def _check_data_writes(self, losses: list[torch.Tensor], event: BackwardEvent) -> None:
        writes = [w for w in self.recorder.data_writes if w.after_forward]
        self.recorder.data_writes.clear()
        if not writes:
            return
        leaves: set[int] = set()
        for loss in losses:
            leaves |= trace(loss).leaf_ids
        index = self.session.model_index()
        done: set[tuple] = set()
        for write in writes:
            key = (write.location.file, write.location.line)
            if write.param_id not in leaves or key in done:
                continue
            done.add(key)
            tensor = index.params.get(write.param_id)
            name = index.name(tensor) if tensor is not None else "a tensor that requires grad"
            self._found.append(
                make(
                    "GD109",
                    f"{name} was changed through `.data` (`{write.op}`) after the forward pass that "
                    "used it and before backward(): autograd does not see `.data` edits, so the "
                    "gradient is computed from values that no longer match the weights, silently.",
                    hint="Edit weights only after `optimizer.step()` (or before the forward pass), under "
                    "`with torch.no_grad():` and without `.data`, so autograd can check the edit.",
                    subjects=[name] if tensor is not None else [],
                    related=_related(event.where, "backward() uses the stale graph here"),
                    step=write.step,
                    **write.location.shown(),
                )
            )

    def findings(self) -> list[Finding]:
        return list(self._found)

    # --- explaining the user's exception -------------------------------------------------------

    def explain_exception(self, exc: BaseException, where: Location) -> list[Finding]:
        text = str(exc)
        if isinstance(exc, AttributeError):
            return self._explain_number(exc, where)
        if not isinstance(exc, RuntimeError):
            return []
        if "backward through the graph a second time" in text:
            return self._explain_freed(where)
        if "modified by an inplace operation" in text:
            return self._explain_inplace(text, where)
        if "Inference tensors cannot be saved for backward" in text or "inference tensor" in text.lower():
            return self._explain_inference(where)
        if "does not require grad and does not have a grad_fn" in text:
            return self._explain_no_graph(where)
        return []

    def _failed_event(self) -> BackwardEvent | None:
        failed = self.session.failed_backward
        return failed[0] if failed is not None else None

    def _explain_number(self, exc: AttributeError, where: Location) -> list[Finding]:
        obj = getattr(exc, "obj", None)
        if obj is None or getattr(exc, "name", None) not in ("backward", "grad_fn", "requires_grad"):
            return []
        cuts = [self.recorder.cuts[i] for i in sorted(self.recorder.taint_of(obj))]
        numbers = [c for c in cuts if c.kind == NUMBER]
        if not numbers or numbers[-1].location is None:
            return []
        cut = numbers[-1]
        return [
            make(
                "GD101",
                f"The loss was turned into a Python {type(obj).__name__} by `.{cut.op}()` here, so "
                f"`.{exc.name}` fails on it at {where}: numbers have no autograd history.",
                hint="Keep the loss a tensor: call backward() on the tensor, and use `.item()` only "
                "for logging (`print(loss.item())`).",
                related=_related(where, "backward() called on the number here") + cut.related(),
                **cut.location.shown(),
            )
        ]

    def _explain_no_graph(self, where: Location) -> list[Finding]:
        event = self._failed_event()
        if event is None:
            return []
        found = cut_history(self.cuts(event.loss), event.where, event.step)
        return [found] if found is not None else []

    def _explain_freed(self, where: Location) -> list[Finding]:
        event = self._failed_event()
        if event is None:
            return []
        result = carried.inspect_failure(event.loss, event.index)
        both = _related(event.where, "this backward() fails")
        if result.carried is not None:
            tag = result.carried
            file = tag.source or tag.holder.file
            before = tag.where.line if file == tag.holder.file else None
            line = carried.assignment_line(file, tag.name, before)
            at = Location(file, line, None, None) if line else tag.holder
            return [
                make(
                    "GD107",
                    f"`{tag.name}` is carried from one iteration to the next without `.detach()`: "
                    f"the value assigned here in an earlier iteration still holds that iteration's "
                    f"graph, which backward() at {tag.where} already freed, so this backward() "
                    "tries to go through it again.",
                    hint=f"Cut the carried state at the start of each iteration: `{tag.name} = "
                    f"{tag.name}.detach()` (truncated backpropagation through time). Do not add "
                    "retain_graph=True: it keeps every iteration's graph alive.",
                    related=_related(tag.where, "earlier backward() that freed the graph") + both,
                    subjects=[tag.name],
                    **at.shown(),
                )
            ]
        previous = result.shared.where if result.shared is not None else (
            self._last_backward.where if self._last_backward is not None and self._last_backward is not event else None
        )
        if previous is None:
            return []
        return [
            make(
                "GD107",
                f"backward() at {event.where} goes through a graph that backward() at {previous} "
                "already freed: the two calls share part of one graph.",
                hint="Add the losses and call backward() once (`(loss_a + loss_b).backward()`); use "
                "`retain_graph=True` on the first call only if the two backward passes must really be separate.",
                related=_related(previous, "first backward() freed the shared graph here"),
                **event.where.shown(),
            )
        ]

    def _explain_inplace(self, text: str, where: Location) -> list[Finding]:
        found = _INPLACE_MESSAGE.search(text)
        if found is None:
            return []
        shape = tuple(int(x) for x in found["shape"].replace(" ", "").split(",") if x)
        expected, version = int(found["expected"]), int(found["version"])
        producer = _stem(found["node"])
        candidates = [
            e for e in self.recorder.inplace
            if e.shape == shape and not e.leaf and (e.producer is None or _stem(e.producer) == producer)
            and e.version_before <= expected < e.version_after <= version
        ]
        if not candidates:
            return []
        edit = candidates[-1]
        saver = self._saving_node()
        saved_by = f"`{saver}`" if saver else f"the op that made it (`{found['node']}`)"
        event = self._failed_event()
        related = list(edit.chain[1:2] and _related(edit.chain[1], "called from here"))
        if event is not None:
            related += _related(event.where, "backward() fails here")
        return [
            make(
                "GD108",
                f"`{edit.op}` here changed a tensor of shape {list(shape)} (output {found['out']} of "
                f"{found['node']}) in place, from version {edit.version_before} to {edit.version_after}, "
                f"after it was saved for the backward pass by {saved_by}; backward() needs the "
                "original values and refuses.",
                related=related,
                step=edit.step,
                **edit.location.shown(),
            )
        ]

    def _saving_node(self) -> str | None:
        """The graph node whose saved tensor was edited: its unpacking fails the same way."""
        event = self._failed_event()
        if event is None:
            return None
        roots = [t.grad_fn for t in _loss_tensors(event.loss) if t.grad_fn is not None]
        seen, stack = set(roots), list(roots)
        while stack and len(seen) < 100_000:
            node = stack.pop()
            for attr in dir(node):
                if attr.startswith("_saved_"):
                    try:
                        getattr(node, attr)
                    except RuntimeError as err:
                        if "inplace" in str(err):
                            return type(node).__name__
                    except Exception:
                        pass
            for child, _ in node.next_functions:
                if child is not None and child not in seen:
                    seen.add(child)
                    stack.append(child)
        return None

    def _explain_inference(self, where: Location) -> list[Finding]:
        failure = self.recorder.inference_failure
        if failure is None or failure[0] is None or failure[0].location is None:
            return []
        birth, used = failure
        related = _related(used, "used here where autograd must save it") + _related(
            birth.region_entry, "inference mode entered here"
        )
        return [
            make(
                "GD112",
                f"This tensor (shape {list(birth.shape)}) was created under torch.inference_mode(); "
                f"at {used} it is used in a computation autograd records, which must save it for "
                "backward, and inference tensors cannot be saved.",
                related=related,
                **birth.location.shown(),
            )
        ]


def _stem(node: str) -> str:
    return re.sub(r"Backward\d*$", "", node)


def _on_top(mode) -> bool:
    from torch.overrides import _get_current_function_mode_stack

    stack = _get_current_function_mode_stack()
    return bool(stack) and stack[-1] is mode


def _pop_mode(mode) -> None:
    """Leave the mode; if the user pushed modes above it and left them open, remove ours anyway."""
    from torch.overrides import _get_current_function_mode_stack

    stack = _get_current_function_mode_stack()
    if stack and stack[-1] is mode:
        mode.__exit__(None, None, None)
        return
    above = []
    while stack and stack[-1] is not mode:
        above.append(torch._C._pop_torch_function_stack())
        stack = _get_current_function_mode_stack()
    if stack:
        mode.__exit__(None, None, None)
    for other in reversed(above):
        torch._C._push_on_torch_function_stack(other)
