"""The deep-mode recorder: a TorchFunctionMode that notes where autograd history ends.

Per op it does only what it must: look at the inputs' `requires_grad` and at
a small taint table. A *cut* is an op whose tensor input requires grad while
its result does not (detach, .data, .item(), argmax, an op under no_grad...).
Each cut's output is tainted with the cut, and the taint follows every later
op, so that when a loss or a parameter misses its gradient the cuts that
actually lie between them can be named, and no others.

Cheap by design: stack walks and graph walks happen only at cuts (and only
the first few times per site), never per op; the taint table holds weak
references, so it keeps no tensor alive.

Longer than our ~300-line habit on purpose: every kind of cut (detach, .data,
numbers, numpy and list round trips, re-wraps, requires_grad_, frozen models,
in-place edits under no_grad) is recognised inside the one `__torch_function__`
pass, so that each op is looked at once; the records it writes are in
records.py and what they mean to the user in explaining.py.
"""

from __future__ import annotations

import math
import os
import sys
import weakref
from collections import deque

import torch
from torch.overrides import TorchFunctionMode

from graddoctor.graph.walk import trace
from graddoctor.internal import record_internal_error
from graddoctor.locate import Location, is_user_file
from graddoctor.provenance import rnn_steps
from graddoctor.provenance.frames import Region, body_location, find_region, user_chain
from graddoctor.provenance.records import (
    DATA,
    DETACH,
    FROZEN,
    GRAD_OFF,
    NON_DIFFERENTIABLE,
    NUMBER,
    REWRAP,
    Cut,
    DataWrite,
    InferenceBirth,
    InplaceEdit,
    NanOrigin,
    ZeroingOp,
)

Tensor = torch.Tensor
_is_grad_enabled = torch.is_grad_enabled
_is_inference = torch.is_inference_mode_enabled
_is_compiling = torch.compiler.is_compiling

# What an op is, decided once per function object.
(_PLAIN, _INPLACE, _NUMBER, _DETACH, _DATA_GET, _DATA_SET, _SET_GRAD, _FACTORY, _ATTRIBUTE, _STEP_FN, _BOUNDED,
 _REQUIRES_GRAD, _SHAPE_ONLY, _RNN, _SELECT) = range(15)
_NUMBER_OPS = {"item", "tolist", "numpy", "__float__", "__int__", "__index__"}
_FACTORIES = {"tensor", "as_tensor", "asarray", "from_numpy", "Tensor"}
# Take only the shape, dtype and device of their tensor argument, never its values: a result
# that does not require grad cuts no path (`weight.new_zeros(...)` for an RNN's first state).
_SHAPE_ONLY_OPS = {"new_zeros", "new_ones", "new_empty", "new_full", "new_empty_strided", "zeros_like",
                   "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like"}
# Uninitialised memory holds whatever was there: a NaN in it is no op's doing (SPEC section 5).
_UNINITIALISED = {"empty", "new_empty", "empty_like", "empty_strided", "new_empty_strided"}
_INPLACE_DUNDERS = {"__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
                    "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__"}
_NOT_INPLACE = {"requires_grad_", "retain_grad_", "share_memory_", "detach_", "record_stream_", "_fix_weakref"}
_DATA = torch.Tensor.data
# Ops whose local derivative is zero: everywhere (step functions), or wherever the input
# lies outside the bounds (a clamp at its bound, a dead ReLU). What GD111 names as the cause.
_STEP_FUNCTIONS = {"round", "sign", "floor", "ceil", "trunc", "fix"}
_BOUNDED_OPS = {"relu", "relu6", "hardtanh", "clamp", "clip", "clamp_min", "clamp_max", "threshold"}


def _classify(func) -> int:
    owner = getattr(func, "__self__", None)
    if owner is _DATA:
        return _DATA_GET if getattr(func, "__name__", "") == "__get__" else _DATA_SET
    if getattr(func, "__name__", "") == "requires_grad_" or (
            getattr(func, "__name__", "") == "__set__" and getattr(owner, "__name__", "") == "requires_grad"):
        return _REQUIRES_GRAD  # `requires_grad_(...)` and `t.requires_grad = ...`
    if getattr(func, "__name__", "") in ("__get__", "__set__", "__delete__"):
        return _ATTRIBUTE  # .grad, .shape, .requires_grad...: reading an attribute cuts nothing
    if func is torch._C._set_grad_enabled:
        return _SET_GRAD
    name = getattr(func, "__name__", "")
    if name in _NUMBER_OPS:
        return _NUMBER
    if name in ("detach", "detach_"):
        return _DETACH
    if name in _FACTORIES:
        return _FACTORY
    if name in _SHAPE_ONLY_OPS:
        return _SHAPE_ONLY
    if name in rnn_steps.RNN_OPS:
        return _RNN
    if name in rnn_steps.SELECT_OPS:
        return _SELECT
    if name in _INPLACE_DUNDERS or (name.endswith("_") and not name.endswith("__") and name not in _NOT_INPLACE):
        return _INPLACE
    if name in _STEP_FUNCTIONS:
        return _STEP_FN
    if name in _BOUNDED_OPS:
        return _BOUNDED
    return _PLAIN


_KINDS: dict = {}
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


def _closing(frame) -> bool:
    """Whether a grad-mode switch comes from leaving a context manager (its __exit__)."""
    while frame is not None and frame.f_code.co_filename.endswith(("grad_mode.py", "_contextlib.py")):
        if frame.f_code.co_name == "__exit__":
            return True
        frame = frame.f_back
    return False
def _shape_of(value: object) -> tuple | None:
    """An array's shape, or a list's length, as a key to match a rebuilt tensor against."""
    shape = getattr(value, "shape", None)
    if shape is not None and not isinstance(value, Tensor):
        return ("array", tuple(shape))
    if type(value) is list:
        return ("list", len(value))
    return None


def _module_freezing(frame):
    """The module whose `requires_grad_(False)` is running, when a Module method called this."""
    from torch import nn

    while frame is not None and not _user_file(frame.f_code.co_filename):
        owner = frame.f_locals.get("self") if frame.f_code.co_name == "requires_grad_" else None
        if isinstance(owner, nn.Module):
            return owner
        frame = frame.f_back
    return None


def _first_non_finite(tensors) -> str | None:
    """'nan', 'inf' or '-inf' for the first floating tensor holding one, else None (one sync each)."""
    for t in tensors:
        if not isinstance(t, Tensor) or not (t.is_floating_point() or t.is_complex()) or t.is_sparse:
            continue
        if t.device.type == "meta" or t.numel() == 0:
            continue
        try:
            if bool(torch.isfinite(t).all()):
                continue
            if bool(torch.isnan(t).any()):
                return "nan"
            return "inf" if bool((t == float("inf")).any()) else "-inf"
        except (RuntimeError, NotImplementedError, TypeError):  # a subclass or layout without these kernels
            continue
    return None


def _outside_training_pass(frame) -> bool:
    """Whether an op runs while parameters are built or initialised, or inside an optimizer.

    Those values are not the forward pass or the loss: a NaN there is not the user's op
    making one (and a module's constructor fills what `empty` left before anyone reads it).
    """
    from torch import nn

    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith(_NOT_TRAINING_DIRS) or filename == _INIT_FILE:
            return True
        if frame.f_code.co_name == "__init__" and isinstance(frame.f_locals.get("self"), nn.Module):
            return True
        frame = frame.f_back
    return False


_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))
_NOT_TRAINING_DIRS = (os.path.join(_TORCH_DIR, "optim") + os.sep,)
_INIT_FILE = os.path.join(_TORCH_DIR, "nn", "init.py")
_MAX_WALKS_PER_SITE = 3
# Zeroing ops are looked for on the first optimizer steps only: GD111 needs a gradient that
# is zero on every step, so those steps show its cause, and later steps pay nothing.
ZERO_WATCH_STEPS = 3
_MAX_NUMBERS = 256
# Arrays and lists made from a cut's values, by shape: a numpy op in between (np.clip, arr * 2)
# makes a new array whose identity says nothing, so a tensor rebuilt from an array of the same
# shape soon after is taken as the round trip's end.
_MAX_ARRAYS = 16
# Floats made from cut values (`.item()`), in order: Python arithmetic on them (`sum(losses)`,
# `total / n`) makes new float objects whose identity says nothing, so a tensor built from a
# float equal to one of them, or to the sum or mean of a run of consecutive ones, is taken as
# rebuilt from them. Bounded: the search is quadratic in this length, and runs only for a
# factory given a Python float while such floats were made.
_MAX_VALUES = 64


class Recorder(TorchFunctionMode):
    """Records cuts, in-place edits, `.data` writes and inference tensors while active."""

    _graddoctor_hidden_when_compiled = True  # session/compiled.py takes it off around compiled code

    def __init__(self) -> None:
        super().__init__()
        self.session = None  # set when the observer starts: our own failures are recorded there
        self.cuts: list[Cut] = []
        self.zeroing: dict[tuple, ZeroingOp] = {}  # by site: ops that gave a zero local gradient
        self._rnn_outputs: dict[int, rnn_steps.Output] = {}  # bidirectional RNN outputs, by id
        self._sites: dict[tuple, Cut] = {}
        self._taint: dict[int, tuple[weakref.ref, frozenset]] = {}
        self._numbers: dict[int, tuple[object, frozenset]] = {}
        self._arrays: deque[tuple[tuple, frozenset]] = deque(maxlen=_MAX_ARRAYS)
        self._values: deque[tuple[float, frozenset]] = deque(maxlen=_MAX_VALUES)  # floats made from cuts
        self._region: Region | None = None  # the open grad-off region, if any
        self._shelved: list[Region | None] = []  # regions suspended by enable_grad()
        self.inference_regions: list[Region] = []
        self.inplace: deque[InplaceEdit] = deque(maxlen=2048)  # optimizer steps add one per parameter
        self._data_of: dict[int, tuple[weakref.ref, int]] = {}
        self.data_writes: list[DataWrite] = []
        self.births: dict[int, tuple[weakref.ref, InferenceBirth]] = {}
        self.inference_failure: tuple[InferenceBirth | None, Location] | None = None
        self.forward_seen = False  # graph-recording ops ran since the last backward
        self.used_since_backward: set[int] = set()  # ids of tensors a graph-recording op took
        self.step = 1  # the 1-based number of the optimizer step the recorded ops belong to
        self._inserts = 0
        # Only inside an escalated window (asked for after a NaN/Inf was seen): one fused
        # isfinite check per op result until the first op that made a non-finite value.
        self.nan_watch = False
        self.nan_origin: NanOrigin | None = None
        self.nan_inherited: Location | None = None  # the first non-finite result came from non-finite inputs

    # --- the hot path -------------------------------------------------------------------------

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if _is_compiling():
            # torch.compile traces through modes: stay transparent, so the compiled graph
            # is the user's own and nothing here recompiles per tensor.
            return func(*args, **(kwargs or {}))
        kind = _KINDS.get(func)
        if kind is None:
            kind = _KINDS[func] = _classify(func)
        if kwargs is None:
            kwargs = {}
        if kind is _ATTRIBUTE or kind is _SHAPE_ONLY:
            return func(*args, **kwargs)
        if kind is _SET_GRAD:
            before = _is_grad_enabled()
            out = func(*args, **kwargs)
            self._grad_switch(before, _is_grad_enabled(), sys._getframe(1))
            return out
        if kind is _REQUIRES_GRAD:
            target = args[0] if args and isinstance(args[0], Tensor) else None
            before = target.requires_grad if target is not None else False
            out = func(*args, **kwargs)
            if target is not None and target.requires_grad != before:
                self._requires_grad_set(target, sys._getframe(1))
            return out
        pre = None
        if kind is _INPLACE and args and isinstance(args[0], Tensor):
            pre = self._before_inplace(args[0])
        try:
            out = func(*args, **kwargs)
        except RuntimeError as exc:
            self._failed(args, exc)
            raise
        grad_on = _is_grad_enabled()
        region = self._region
        if not grad_on and region is not None and not region.user and not _is_inference():
            return out  # torch's own no-grad work (an optimizer step): nothing of the user's is cut
        if kind is _RNN and grad_on and self.step < ZERO_WATCH_STEPS:
            self._rnn_output(func, args, out)
        if self.nan_watch:
            try:
                self._check_finite(func, args, kwargs, out, sys._getframe(1))
            except (RuntimeError, NotImplementedError):  # a tensor type without these kernels: give up the check
                self.nan_watch = False
            except Exception:  # our bug: recorded, never the user's op
                self.nan_watch = False
                if self.session is not None:
                    record_internal_error(self.session, "watching ops for NaN")

        # Runs for every op in deep mode: the scan of plain arguments and of list/tuple
        # arguments is written out twice on purpose (a shared helper call per argument
        # costs measurably on the dispatch-bound benchmark).
        requires = False
        taint = None
        table = self._taint
        numbers = self._numbers
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
                        more = self._number_taint(a)
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
                            more = self._number_taint(b)
                            if more is not None:
                                taint = more if taint is None else taint | more
                elif numbers and id(a) in numbers:
                    more = self._number_taint(a)
                    if more is not None:
                        taint = more if taint is None else taint | more

        if (kind is _FACTORY and taint is None and self._values and args and isinstance(out, Tensor)
                and isinstance(args[0], float)):  # torch.tensor(sum(losses) / len(losses)); np.mean(...) too
            taint = self._summed_taint(args[0], out, getattr(func, "__name__", "tensor"), sys._getframe(1))
        if (kind is _FACTORY and (taint is not None or self._arrays) and args and isinstance(out, Tensor)
                and not isinstance(args[0], Tensor)):  # torch.tensor(arr), torch.tensor(x.tolist())
            taint = self.rebuilt_from(args[0], out, getattr(func, "__name__", "tensor"), sys._getframe(1)) or taint
            if taint is not None and out.requires_grad:  # torch.tensor(values, requires_grad=True)
                self._revived(taint, sys._getframe(1))
        if pre is not None:
            self._after_inplace(args[0], pre, func)
        elif kind is _DATA_SET and args and isinstance(args[0], Tensor) and args[0].requires_grad:
            self._data_write(id(args[0]), "data = ...", sys._getframe(1))

        if isinstance(out, Tensor):
            if requires:
                if out.requires_grad:
                    if grad_on:
                        # Recorded into a graph: these inputs are now saved or referenced by it.
                        self.forward_seen = True
                        _mark_site(out, sys._getframe(1))
                        if (kind is _STEP_FN or kind is _BOUNDED) and self.step <= ZERO_WATCH_STEPS:
                            self._zeroing(kind, func, args, out, sys._getframe(1))
                        elif kind is _SELECT and self._rnn_outputs and self.step < ZERO_WATCH_STEPS:
                            self._selected(func, args, sys._getframe(1))
                        used = self.used_since_backward.add
                        for a in args:
                            if isinstance(a, Tensor) and a.requires_grad:
                                used(id(a))
                else:
                    cut = self._cut(kind, func, args, kwargs, grad_on, sys._getframe(1))
                    if cut is not None:
                        taint = frozenset((cut.id,)) if taint is None else taint | {cut.id}
                    if kind is _DATA_GET:
                        if len(self._data_of) > 4096:
                            self._data_of = {k: v for k, v in self._data_of.items() if v[0]() is not None}
                        self._data_of[id(out)] = (weakref.ref(out), id(args[0]))
            if taint is not None:
                self._set_taint(out, taint)
            if not grad_on and self.inference_regions and out.is_inference():
                self._birth(out, sys._getframe(1))
        elif type(out) is tuple and out and requires:
            # sort/max/topk: the indices do not require grad while the values do.
            for item in out:
                if isinstance(item, Tensor) and not item.requires_grad:
                    cut = self._cut(kind, func, args, kwargs, grad_on, sys._getframe(1))
                    if cut is not None:
                        self._set_taint(item, frozenset((cut.id,)) if taint is None else taint | {cut.id})
                elif taint is not None and isinstance(item, Tensor):
                    self._set_taint(item, taint)
        elif kind is _NUMBER or (taint is not None and out is not None and not isinstance(out, (bool, tuple))):
            if requires and kind is _NUMBER:
                cut = self._cut(kind, func, args, kwargs, grad_on, sys._getframe(1))
                if cut is not None:
                    taint = frozenset((cut.id,)) if taint is None else taint | {cut.id}
            if taint is not None:
                self._note_number(out, taint)
        return out

    # --- where a NaN/Inf is made (escalated windows only) ---------------------------------------

    def _check_finite(self, func, args, kwargs, out, frame) -> None:
        if getattr(func, "__name__", "") in _UNINITIALISED:
            return
        bad = _first_non_finite(out if type(out) in (tuple, list) else (out,))
        if bad is None or _outside_training_pass(frame):
            return
        values = [t for group in (args, kwargs.values()) for a in group
                  for t in (a if type(a) in (list, tuple) else (a,))]
        if any(type(v) is float and not math.isfinite(v) for v in values):
            return  # asked for by value (`masked_fill(mask, float("-inf"))` in attention): no accident
        self.nan_watch = False  # one answer per window: what follows the first hit only inherits it
        chain = user_chain(frame)
        inputs = [t for t in values if isinstance(t, Tensor)]
        if _first_non_finite(inputs) is not None:
            # The values came in non-finite (weights an earlier NaN step already wrote, or the
            # data): this op did not make them, and no op of this forward pass did.
            self.nan_inherited = chain[0] if chain else None
            return
        name = getattr(func, "__name__", str(func)).strip("_")
        self.nan_origin = NanOrigin(name, chain[0] if chain else None, chain, self.step, bad)

    # --- taint ------------------------------------------------------------------------------

    def _set_taint(self, tensor: Tensor, taint: frozenset) -> None:
        self._taint[id(tensor)] = (weakref.ref(tensor), taint)
        self._inserts += 1
        if self._inserts >= 4096:
            self._inserts = 0
            self._taint = {k: v for k, v in self._taint.items() if v[0]() is not None}

    def _note_number(self, value: object, taint: frozenset) -> None:
        if isinstance(value, int) and -5 <= value <= 256:
            return  # CPython shares these objects: their identity says nothing
        # Python numbers and lists cannot be weakly referenced; they hold no tensor and the
        # table is bounded. Numpy arrays share the tensor's memory, so they are held weakly.
        try:
            held: object = weakref.ref(value)
        except TypeError:
            held = value
        if len(self._numbers) >= _MAX_NUMBERS:
            self._numbers.pop(next(iter(self._numbers)))
        self._numbers[id(value)] = (held, taint)
        if type(value) is float and math.isfinite(value):
            self._values.append((value, taint))
        shape = _shape_of(value)
        if shape is not None:
            self._arrays.append((shape, taint))

    def _number_taint(self, value: object) -> frozenset | None:
        seen = self._numbers.get(id(value))
        if seen is None:
            return None
        held = seen[0]
        alive = held() if isinstance(held, weakref.ref) else held
        return seen[1] if alive is value else None

    def _summed_taint(self, value: float, out: Tensor, how: str, frame) -> frozenset | None:
        """The cuts behind a float that equals a recorded float, or the sum or mean of a run of them."""
        value = float(value)  # a numpy float64 from np.mean(losses) is a float subclass
        if not math.isfinite(value) or value == int(value):
            return None  # round numbers (0.0, 1.0, a count) match by accident
        values = list(self._values)
        found: frozenset | None = None
        for start in range(len(values) - 1, -1, -1):  # runs ending at the newest first
            total, taint = 0.0, frozenset()
            for count, (number, cuts) in enumerate(values[start:], 1):
                total += number
                taint |= cuts
                if math.isclose(value, total, rel_tol=1e-9) or math.isclose(value, total / count, rel_tol=1e-9):
                    found = taint
                    break
            if found is not None:
                break
        if found is None:
            return None
        chain = user_chain(frame) if frame is not None else []
        if chain:
            for cut_id in found:
                cut = self.cuts[cut_id]
                if cut.rebuilt is None and cut.kind != FROZEN:
                    cut.rebuilt = (chain[0], f"torch.{how}(...)")
        return found  # the caller marks `requires_grad=True` on `out` as hiding the cut

    def taint_of(self, value: object) -> frozenset:
        if isinstance(value, Tensor):
            seen = self._taint.get(id(value))
            return seen[1] if seen is not None and seen[0]() is value else frozenset()
        return self._number_taint(value) or frozenset()

    def tainted_from_number(self, value: object, out: Tensor, frame=None) -> None:
        """A tensor built from a recorded number or array (torch.from_numpy) carries its taint."""
        taint = self.taint_of(value) or self.rebuilt_from(value, out, "torch.from_numpy", frame)
        if taint:
            self._set_taint(out, taint)

    def rebuilt_from(self, value: object, out: Tensor, how: str, frame) -> frozenset | None:
        """The cuts behind an array or list a new tensor is built from, noting where it was built.

        Found by identity (the `.numpy()` result itself, or a view of it through `.base`), else
        by shape among the last arrays made from cut values: `np.clip(arr, ...)` is a new array.
        """
        taint = self.taint_of(value)
        base = getattr(value, "base", None)
        while not taint and base is not None and not isinstance(base, (bytes, memoryview)):
            taint, base = self.taint_of(base), getattr(base, "base", None)
        if not taint:
            shape = _shape_of(value)
            if shape is None:
                return None
            taint = next((t for s, t in reversed(self._arrays) if s == shape), None)
            if not taint:
                return None
        chain = user_chain(frame) if frame is not None else []
        if chain:
            if not how.startswith("torch."):
                how = f"torch.{how}(...)"
            elif not how.endswith(")"):
                how += "(...)"
            for cut_id in taint:
                cut = self.cuts[cut_id]
                if cut.rebuilt is None and cut.kind != FROZEN:
                    cut.rebuilt = (chain[0], how)
        return taint

    # --- requires_grad set by hand ---------------------------------------------------------------

    def _requires_grad_set(self, target: Tensor, frame) -> None:
        """A parameter frozen (a FROZEN cut, carried like any cut), or a cut's copy made a leaf."""
        taint = self.taint_of(target)
        if target.requires_grad:
            frozen = frozenset(i for i in taint if self.cuts[i].kind == FROZEN)
            if frozen:  # unfrozen again: its later results owe nothing to the freeze
                rest = taint - frozen
                if rest:
                    self._set_taint(target, rest)
                else:
                    self._taint.pop(id(target), None)
            self._revived(taint - frozen, frame)
            return
        if target.grad_fn is not None:
            return  # only a leaf can be frozen
        chain = user_chain(frame)
        if not chain:
            return
        here = chain[0]
        key = (FROZEN, here.file, here.line)
        cut = self._sites.get(key)
        if cut is None:
            owner = _module_freezing(frame)
            op = "requires_grad = False" if "requires_grad =" in here.source else "requires_grad_(False)"
            cut = Cut(id=len(self.cuts), kind=FROZEN, op=op, location=here, chain=chain,
                      subject=f"all parameters of {type(owner).__name__}" if owner is not None else "")
            self.cuts.append(cut)
            self._sites[key] = cut
        cut.count += 1
        cut.frozen_ids.add(id(target))
        self._set_taint(target, taint | {cut.id})

    def _revived(self, taint: frozenset, frame) -> None:
        """A cut's copy was made to require grad: backward() will run and stop at it."""
        chain = user_chain(frame, limit=1)
        for cut_id in taint:
            cut = self.cuts[cut_id]
            if cut.revived is None and chain and cut.kind != FROZEN:
                cut.revived = chain[0]

    # --- cuts -------------------------------------------------------------------------------

    def _cut(self, kind: int, func, args, kwargs, grad_on: bool, frame) -> Cut | None:
        name = getattr(func, "__name__", str(func))
        if not grad_on or _is_inference():
            region = self.inference_regions[-1] if _is_inference() and self.inference_regions else self._region
            if region is not None and not region.user:
                return None
            cut_kind = GRAD_OFF
        elif kind is _DETACH:
            cut_kind = DETACH
        elif kind is _DATA_GET:
            cut_kind, name = DATA, "data"
        elif kind is _NUMBER:
            cut_kind = NUMBER
        elif kind is _FACTORY:
            cut_kind = REWRAP
        else:
            region, cut_kind = None, NON_DIFFERENTIABLE
        if cut_kind != GRAD_OFF:
            region = None
        if region is not None and region.body is not None:
            here, chain = body_location(region, frame)
            inner = chain[0] if chain else None
            key = (cut_kind, id(region.body.f_code), here.line, inner.line if inner else None)
        else:
            chain = user_chain(frame)
            here = chain[0] if chain else None
            key = (cut_kind, name, here.file if here else None, here.line if here else None)
        cut = self._sites.get(key)
        if cut is None:
            cut = Cut(
                id=len(self.cuts),
                kind=cut_kind,
                op=name.strip("_"),
                location=here,
                chain=chain,
                region_entry=region.entry if region is not None else None,
                region_how=region.how if region is not None else "",
            )
            self.cuts.append(cut)
            self._sites[key] = cut
        cut.count += 1
        self._feeders(cut, args, kwargs)
        return cut

    def _feeders(self, cut: Cut, args, kwargs) -> None:
        """Which leaves (parameters) fed the cut's input; graph walks only the first times."""
        walk = cut.count <= _MAX_WALKS_PER_SITE
        for group in (args, kwargs.values()):
            for a in group:
                items = a if type(a) in (list, tuple) else (a,)
                for t in items:
                    if isinstance(t, Tensor) and t.requires_grad:
                        if t.grad_fn is None:
                            cut.param_ids.add(id(t))
                        elif walk:
                            cut.param_ids |= trace(t).leaf_ids

    # --- ops that zero the gradient (GD111) ---------------------------------------------------

    def _zeroing(self, kind: int, func, args, out: Tensor, frame) -> None:
        x = args[0] if args else None
        if not isinstance(x, Tensor) or out is x:
            return
        if kind is _BOUNDED:
            try:
                # Gradient passes where the result equals the input (inside the bounds, or a
                # ReLU's positive part): one element that does means the op zeroes nothing.
                if out.shape != x.shape or bool((out == x).any()):
                    return
            except (RuntimeError, NotImplementedError, TypeError):
                return
        chain = user_chain(frame)
        if not chain:
            return
        name = getattr(func, "__name__", str(func)).strip("_")
        key = (name, chain[0].file, chain[0].line)
        record = self.zeroing.get(key)
        if record is None:
            if len(self.zeroing) >= 256:
                return
            record = self.zeroing[key] = ZeroingOp(name, chain[0], chain, saturated=kind is _BOUNDED)
        record.count += 1
        if record.count <= _MAX_WALKS_PER_SITE and x.requires_grad:
            record.param_ids |= {id(x)} if x.grad_fn is None else trace(x).leaf_ids

    def _rnn_output(self, func, args, out) -> None:
        entry = rnn_steps.note_output(getattr(func, "__name__", ""), args, out)
        if entry is not None:
            if len(self._rnn_outputs) >= 64:
                self._rnn_outputs = {k: v for k, v in self._rnn_outputs.items() if v.ref() is not None}
            self._rnn_outputs[id(entry.ref())] = entry

    def _selected(self, func, args, frame) -> None:
        """One time step of a bidirectional RNN's output was taken (GD111's cause when it starves a weight)."""
        entry = self._rnn_outputs.get(id(args[0])) if args else None
        if entry is None or entry.ref() is not args[0]:
            return
        found = rnn_steps.selection(entry, getattr(func, "__name__", ""), args)
        chain = user_chain(frame) if found is not None else []
        if not chain:
            return
        weight, why, fix = found
        key = ("time step", chain[0].file, chain[0].line, weight)
        record = self.zeroing.get(key)
        if record is None and len(self.zeroing) < 256:
            record = self.zeroing[key] = ZeroingOp("indexing", chain[0], chain, saturated=False, param_ids={weight},
                                                   why=why, fix=fix)
        if record is not None:
            record.count += 1

    # --- grad mode ----------------------------------------------------------------------------

    def _grad_switch(self, before: bool, after: bool, frame) -> None:
        closing = _closing(frame)
        if before and not after:
            if closing and self._shelved:
                self._region = self._shelved.pop()  # enable_grad() ends inside no_grad()
            else:
                self._region = find_region(frame)
        elif after and not before:
            region, self._region = self._region, None
            if region is None:
                return
            if not closing and region.user and len(self._shelved) < 16:
                self._shelved.append(region)  # enable_grad() inside the user's no_grad()
            else:
                region.close()

    def enter_inference(self, frame) -> None:
        region = find_region(frame)
        region.how = region.how.replace("torch.set_grad_enabled(False)", "torch.inference_mode()")
        self.inference_regions.append(region)

    def exit_inference(self) -> None:
        if self.inference_regions:
            self.inference_regions.pop().close()

    # --- in-place edits, .data writes, inference tensors ---------------------------------------

    def _before_inplace(self, target: Tensor):
        if not target.requires_grad and id(target) not in self._data_of:
            return None
        producer = type(target.grad_fn).__name__ if target.grad_fn is not None else None
        return (target._version, producer, target.grad_fn is None and target.requires_grad)

    def _after_inplace(self, target: Tensor, pre, func) -> None:
        version, producer, leaf = pre
        name = getattr(func, "__name__", "in-place op")
        frame = sys._getframe(2)
        source = self._data_of.get(id(target))
        if source is not None and source[0]() is target:
            self._data_write(source[1], name, frame)
            return
        if target._version == version:
            return
        chain = user_chain(frame)
        if not chain:
            return
        self.inplace.append(
            InplaceEdit(
                name, chain[0], chain, tuple(target.shape), version, target._version, producer, leaf, self.step,
                type(target.grad_fn).__name__ if target.grad_fn is not None else None,
                param_id=id(target) if leaf else None,
            )
        )

    def _data_write(self, param_id: int, op: str, frame) -> None:
        chain = user_chain(frame, limit=1)
        if chain and len(self.data_writes) < 1024:  # judged and cleared at each backward
            # Only an edit after a recorded op used the tensor leaves that graph with stale values.
            after = self.forward_seen and param_id in self.used_since_backward
            self.data_writes.append(DataWrite(param_id, op, chain[0], after, self.step))

    def _birth(self, out: Tensor, frame) -> None:
        region = self.inference_regions[-1]
        if not region.user:
            return
        chain = user_chain(frame, limit=1)
        birth = InferenceBirth(chain[0] if chain else None, region.entry, tuple(out.shape))
        if len(self.births) > 4096:
            self.births = {k: v for k, v in self.births.items() if v[0]() is not None}
        self.births[id(out)] = (weakref.ref(out), birth)

    def _failed(self, args, exc: RuntimeError) -> None:
        if "Inference tensors" not in str(exc) and "inference tensor" not in str(exc):
            return
        where = user_chain(sys._getframe(2), limit=1)
        for a in args:
            items = a if type(a) in (list, tuple) else (a,)
            for t in items:
                if isinstance(t, Tensor) and t.is_inference():
                    seen = self.births.get(id(t))
                    birth = seen[1] if seen is not None and seen[0]() is t else None
                    self.inference_failure = (birth, where[0] if where else Location(None, None))
                    return
