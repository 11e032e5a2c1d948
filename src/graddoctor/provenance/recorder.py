"""The deep-mode recorder: a TorchFunctionMode that notes where autograd history ends.

Per op it does only what it must: look at the inputs' `requires_grad` and at
a small taint table (taint.py). A *cut* is an op whose tensor input requires
grad while its result does not (detach, .data, .item(), argmax, an op under
no_grad...). Each cut's output is tainted with the cut, and the taint follows
every later op, so that when a loss or a parameter misses its gradient the cuts
that actually lie between them can be named, and no others.

`__torch_function__` is the one scan of each op's inputs and output; what each
kind of op means is noted by a tracker of its own (trackers/), called only for
the ops of its kind (op_kinds.py). The records they write are in records.py and
what they mean to the user in explaining.py.

Cheap by design: stack walks and graph walks happen only at cuts (and only
the first few times per site), never per op; the taint table holds weak
references, so it keeps no tensor alive.
"""

from __future__ import annotations

import sys

import torch
from torch.overrides import TorchFunctionMode

from graddoctor.internal import record_internal_error
from graddoctor.locate import is_user_file
from graddoctor.provenance.op_kinds import (
    ATTRIBUTE,
    BOUNDED,
    DATA_GET,
    DATA_SET,
    FACTORY,
    INPLACE,
    KINDS,
    NUMBER,
    REQUIRES_GRAD,
    RNN,
    SELECT,
    SET_GRAD,
    SHAPE_ONLY,
    STEP_FN,
    classify,
)
from graddoctor.provenance.records import Cut
from graddoctor.provenance.taint import TaintTable
from graddoctor.provenance.trackers.cuts import CutTracker
from graddoctor.provenance.trackers.edits import EditTracker
from graddoctor.provenance.trackers.frozen import FrozenTracker
from graddoctor.provenance.trackers.grad_mode import GradModeTracker
from graddoctor.provenance.trackers.inference import InferenceTracker
from graddoctor.provenance.trackers.non_finite import NonFiniteTracker
from graddoctor.provenance.trackers.round_trips import RoundTrips
from graddoctor.provenance.trackers.zeroing import ZERO_WATCH_STEPS, ZeroingTracker

Tensor = torch.Tensor
_is_grad_enabled = torch.is_grad_enabled
_is_inference = torch.is_inference_mode_enabled
_is_compiling = torch.compiler.is_compiling
_backward_node = torch._C._current_autograd_node
_subclass_hooks_off = torch._C.DisableTorchFunctionSubclass
_subclass_hooks_on = torch._C._EnableTorchFunction


def _with_subclass_hooks(func, args, kwargs):
    with _subclass_hooks_on():
        return func(*args, **kwargs)

SITE = "graddoctor.site"  # key in a graph node's metadata: the user line that made it
_user_file = is_user_file


def _mark_site(out: Tensor, frame) -> None:
    """Write the op's user line into its graph node (the node holds it; nothing here does)."""
    node = out.grad_fn
    if node is None:
        return
    while frame is not None:
        code = frame.f_code
        if _user_file(code.co_filename):
            node.metadata[SITE] = (code.co_filename, frame.f_lineno, code.co_name)
            return
        frame = frame.f_back


def _same_values(param: Tensor, value: object) -> bool:
    """Whether `param.data = value` leaves `param` as it was: `value` is `param` or views the very
    same memory the same way (nn.Module.to() assigns every parameter back to itself when nothing
    moves or converts)."""
    if value is param:
        return True
    if not isinstance(value, Tensor):
        return False
    try:
        return (value.dtype == param.dtype and value.device == param.device and value.shape == param.shape
                and value.stride() == param.stride() and value.data_ptr() == param.data_ptr() != 0)
    except (RuntimeError, NotImplementedError):  # a tensor kind without storage to compare
        return False


class Recorder(TorchFunctionMode):
    """Records cuts, in-place edits, `.data` writes and inference tensors while active."""

    _graddoctor_hidden_when_compiled = True  # session/compiled.py takes it off around compiled code

    def __init__(self) -> None:
        super().__init__()
        self.session = None  # set when the observer starts: our own failures are recorded there
        self.cuts: list[Cut] = []  # every cut, its id its index: the trackers that make cuts append here
        self.taint = TaintTable()
        self.grad_mode = GradModeTracker()
        self.cutter = CutTracker(self.cuts, self.grad_mode)
        self.frozen = FrozenTracker(self.cutter, self.taint)
        self.round_trips = RoundTrips(self.cutter, self.taint)
        self.edits = EditTracker()
        self.zeroing = ZeroingTracker()
        self.non_finite = NonFiniteTracker()
        self.inference = InferenceTracker()
        self.forward_seen = False  # graph-recording ops ran since the last backward
        self.used_since_backward: set[int] = set()  # ids of tensors a graph-recording op took
        self.step = 1  # the 1-based number of the optimizer step the recorded ops belong to

    # --- the hot path -------------------------------------------------------------------------

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if _is_compiling():
            # torch.compile traces through modes: stay transparent, so the compiled graph
            # is the user's own and nothing here recompiles per tensor.
            return func(*args, **(kwargs or {}))
        if _backward_node() is not None:
            # Inside backward: activation checkpointing recomputes the forward here, and must
            # see exactly the ops and saved tensors of the original forward (else CheckpointError).
            # Nothing the user wrote runs in backward that deep mode names.
            return func(*args, **(kwargs or {}))
        if types:
            # A tensor subclass with a __torch_function__ of its own takes part: reading its
            # attributes (requires_grad, grad_fn) would run that code too, and a subclass that
            # counts or logs its ops would see ours. Our reads run with subclasses' hooks off;
            # the user's op runs with them on.
            with _subclass_hooks_off():
                return self._op(func, args, kwargs, lambda *a, **k: _with_subclass_hooks(func, a, k))
        return self._op(func, args, kwargs, func)

    def _op(self, func, args, kwargs, call):
        """Run the op (`call`) and note what it means; `func` is the op itself. Called only by
        `__torch_function__`: the op's caller is two frames up."""
        kind = KINDS.get(func)
        if kind is None:
            kind = KINDS[func] = classify(func)
        if kwargs is None:
            kwargs = {}
        if kind is ATTRIBUTE or kind is SHAPE_ONLY:
            return call(*args, **kwargs)
        if kind is SET_GRAD:
            before = _is_grad_enabled()
            out = call(*args, **kwargs)
            self.grad_mode.switch(before, _is_grad_enabled(), sys._getframe(2))
            return out
        if kind is REQUIRES_GRAD:
            target = args[0] if args and isinstance(args[0], Tensor) else None
            before = target.requires_grad if target is not None else False
            out = call(*args, **kwargs)
            if target is not None and target.requires_grad != before:
                self.frozen.requires_grad_set(target, sys._getframe(2))
            return out
        if kind is DATA_SET:  # `param.data = value`
            target = args[0] if len(args) > 1 and isinstance(args[0], Tensor) and args[0].requires_grad else None
            # nn.Module.to() assigns `param.data = param` when nothing moves or converts: no edit
            changes = target is not None and not _same_values(target, args[1])
            out = call(*args, **kwargs)
            if changes:
                self.edits.data_write(id(target), "data = ...", sys._getframe(2), self.forward_seen,
                                      self.used_since_backward, self.step)
            return out
        pre = None
        if kind is INPLACE and args and isinstance(args[0], Tensor):
            pre = self.edits.before(args[0])
        try:
            out = call(*args, **kwargs)
        except RuntimeError as exc:
            self.inference.failed(args, exc, sys._getframe(2))
            raise
        grad_on = _is_grad_enabled()
        region = self.grad_mode.region
        if not grad_on and region is not None and not region.user and not _is_inference():
            return out  # torch's own no-grad work (an optimizer step): nothing of the user's is cut
        if kind is RNN and grad_on and self.step < ZERO_WATCH_STEPS:
            self.zeroing.rnn_output(func, args, out)
        if self.non_finite.watch:
            try:
                self.non_finite.check(func, args, kwargs, out, sys._getframe(2), self.step)
            except (RuntimeError, NotImplementedError):  # a tensor type without these kernels: give up the check
                self.non_finite.watch = False
            except Exception:  # our bug: recorded, never the user's op
                self.non_finite.watch = False
                if self.session is not None:
                    record_internal_error(self.session, "watching ops for NaN")

        # Runs for every op in deep mode: the scan of plain arguments and of list/tuple
        # arguments is written out twice on purpose (a shared helper call per argument
        # costs measurably on the dispatch-bound benchmark).
        requires = False
        taint = None
        table = self.taint.table
        round_trips = self.round_trips
        numbers = round_trips.numbers
        for group in (args, kwargs.values()) if kwargs else (args,):
            for a in group:
                if isinstance(a, Tensor):
                    if a.requires_grad:
                        requires = True
                    if table:
                        seen = table.get(id(a))
                        if seen is not None and seen[0]() is a:
                            taint = seen[1] if taint is None or taint is seen[1] else taint | seen[1]
                elif type(a) is list or type(a) is tuple:
                    if numbers and id(a) in numbers:  # torch.tensor(x.tolist())
                        more = round_trips.number_taint(a)
                        if more is not None:
                            taint = more if taint is None else taint | more
                    for b in a:
                        if isinstance(b, Tensor):
                            if b.requires_grad:
                                requires = True
                            if table:
                                seen = table.get(id(b))
                                if seen is not None and seen[0]() is b:
                                    taint = seen[1] if taint is None or taint is seen[1] else taint | seen[1]
                        elif numbers and id(b) in numbers:
                            more = round_trips.number_taint(b)
                            if more is not None:
                                taint = more if taint is None else taint | more
                elif numbers and id(a) in numbers:
                    more = round_trips.number_taint(a)
                    if more is not None:
                        taint = more if taint is None else taint | more

        if (kind is FACTORY and taint is None and round_trips.values and args and isinstance(out, Tensor)
                and isinstance(args[0], float)):  # torch.tensor(sum(losses) / len(losses)); np.mean(...) too
            taint = round_trips.summed_taint(args[0], out, getattr(func, "__name__", "tensor"), sys._getframe(2))
        if (kind is FACTORY and (taint is not None or round_trips.arrays) and args and isinstance(out, Tensor)
                and not isinstance(args[0], Tensor)):  # torch.tensor(arr), torch.tensor(x.tolist())
            taint = round_trips.rebuilt_from(args[0], out, getattr(func, "__name__", "tensor"),
                                             sys._getframe(2)) or taint
            if taint is not None and out.requires_grad:  # torch.tensor(values, requires_grad=True)
                self.cutter.revived(taint, sys._getframe(2))
        if pre is not None:
            self.edits.after(args[0], pre, func, sys._getframe(2), self.forward_seen, self.used_since_backward,
                             self.step)

        if isinstance(out, Tensor):
            if requires:
                if out.requires_grad:
                    if grad_on:
                        _mark_site(out, sys._getframe(2))
                        if (kind is STEP_FN or kind is BOUNDED) and self.step <= ZERO_WATCH_STEPS:
                            self.zeroing.zeroing(kind, func, args, out, sys._getframe(2))
                        elif kind is SELECT and self.zeroing.rnn_outputs and self.step < ZERO_WATCH_STEPS:
                            self.zeroing.selected(func, args, sys._getframe(2))
                        if out.grad_fn is not None:
                            # Recorded into a graph: these inputs are now saved or referenced by it. An op
                            # that returns a leaf (`p.to(p.device)` returns p itself) recorded nothing.
                            self.forward_seen = True
                            used = self.used_since_backward.add
                            for a in args:
                                if isinstance(a, Tensor) and a.requires_grad:
                                    used(id(a))
                        if taint is not None:
                            self.cutter.fed(taint, (*args, *kwargs.values()) if kwargs else args)
                else:
                    cut = self.cutter.cut(kind, func, args, kwargs, grad_on, sys._getframe(2))
                    if cut is not None:
                        taint = frozenset((cut.id,)) if taint is None else taint | {cut.id}
                    if kind is DATA_GET:
                        self.edits.data_read(out, args[0])
            if taint is not None:
                self.taint.set(out, taint)
            if not grad_on and self.grad_mode.inference_regions and out.is_inference():
                self.inference.birth(out, self.grad_mode.inference_regions[-1], sys._getframe(2))
        elif type(out) is tuple and out and requires:
            # sort/max/topk: the indices do not require grad while the values do.
            for item in out:
                if isinstance(item, Tensor) and not item.requires_grad:
                    cut = self.cutter.cut(kind, func, args, kwargs, grad_on, sys._getframe(2))
                    if cut is not None:
                        self.taint.set(item, frozenset((cut.id,)) if taint is None else taint | {cut.id})
                elif taint is not None and isinstance(item, Tensor):
                    self.taint.set(item, taint)
        elif kind is NUMBER or (taint is not None and out is not None and not isinstance(out, (bool, tuple))):
            if requires and kind is NUMBER:
                cut = self.cutter.cut(kind, func, args, kwargs, grad_on, sys._getframe(2))
                if cut is not None:
                    taint = frozenset((cut.id,)) if taint is None else taint | {cut.id}
            if taint is not None:
                round_trips.note(out, taint)
        return out

    # --- what the observer asks --------------------------------------------------------------

    def taint_of(self, value: object) -> frozenset:
        """The ids of the cuts behind a tensor, number, array or list."""
        return self.round_trips.taint_of(value)

    def tainted_from_number(self, value: object, out: Tensor, frame=None) -> None:
        """A tensor built from a recorded number or array (torch.from_numpy) carries its taint."""
        taint = self.taint_of(value) or self.round_trips.rebuilt_from(value, out, "torch.from_numpy", frame)
        if taint:
            self.taint.set(out, taint)
