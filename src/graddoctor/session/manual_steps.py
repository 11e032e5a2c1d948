"""Manual updates counted as optimizer steps (SPEC section 3).

A loop without an optimizer updates its parameters itself:
`p.data.add_(p.grad, alpha=-lr)`, or `p -= lr * p.grad` under `no_grad`. Such
an update is an in-place `add_`/`sub_`/`+=`/`-=`/`addcdiv_`/`addcmul_` on a
leaf that has a gradient, under `no_grad` (or on its `.data` alias, found by
its storage), outside any `optimizer.step()`. The updates of one pass over
the parameters make one step, reported to every session as the step of a
stand-in optimizer (`ManualUpdates`) so that every step rule applies unchanged.

A step begins at its first update (before the tensor changes, as a real step
would) and ends when as many parameters were updated as in the previous step,
when a parameter is updated a second time, or at the next loop call (backward,
zero_grad, clip, scheduler, a real step). The first step expects every leaf that
received a gradient (the first backward's leaves, the models' parameters).
A gradient cleared in between (`p -= lr * p.grad; p.grad.zero_()` per
parameter) does not end the step.

The in-place methods are wrapped only while a loop may be manual: after a
backward when no optimizer is known, or after two backward passes with no
step; never again once a real optimizer has stepped. Ordinary loops keep their
`add_` untouched.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable

import torch

from graddoctor.internal import record_internal_error
from graddoctor.locate import user_location
from graddoctor.session import instrumentation

OWNER = "manual steps"
_UPDATES = ("add_", "sub_", "__iadd__", "__isub__", "addcdiv_", "addcmul_")


class ManualUpdates(torch.optim.Optimizer):
    """The stand-in for the optimizer a manual loop does not have: it holds the parameters
    the loop updates and never steps itself."""

    display_name = "manual updates"  # what the report counts its steps as

    def __init__(self, params: list[torch.Tensor], lr: float) -> None:
        # lr is NaN when the update does not show it (`p -= lr * p.grad`): rules that
        # judge the learning rate then have none to judge, rather than a wrong one.
        super().__init__(params, {"lr": lr})
        # The first parameter updated in the current step, its gradient and that gradient's
        # version right after the update: a loop may clear each gradient as soon as it used
        # it (`p -= lr * p.grad; p.grad.zero_()`), before the step is over.
        self.first_update: tuple[weakref.ref, weakref.ref, int] | None = None
        # The parameter whose update begins the step in progress: a script that trains a second
        # model by hand after a first one updates other parameters than the previous step did.
        self.updating: weakref.ref | None = None

    def step(self, closure=None):  # pragma: no cover - never called: the loop steps by hand
        return None


class ManualSteps:
    """Finds manual updates and turns them into begin_step/end_step for the sessions."""

    def __init__(self, sessions: Callable[[], list], stepping: Callable[[], object]) -> None:
        self._sessions = sessions
        self._stepping = stepping  # the real optimizer stepping now, if any
        for name in _UPDATES:
            instrumentation.declare(OWNER, torch.Tensor, name, self._wrapper)
        self.reset()

    def reset(self) -> None:
        instrumentation.detach(OWNER, self)
        self.real_stepped = False
        self.optimizer: ManualUpdates | None = None
        self._backwards_since_step = 0
        self._known: list[weakref.ref] = []  # leaves that received gradients
        self._by_storage: dict[int, weakref.ref] = {}
        self.pending: set[int] = set()  # ids of the parameters updated in the manual step in progress (dispatch reads it inline)
        self._new: list[torch.Tensor] = []  # updated leaves the stand-in does not hold yet
        self._expected: int | None = None
        self._busy = False

    @property
    def installed(self) -> bool:
        return instrumentation.active(OWNER)

    @property
    def settled(self) -> bool:
        """A real optimizer stepped and no manual step is in progress: `after_backward` and
        `real_step` have nothing left to do (dispatch skips calling them on the hot path)."""
        return self.real_stepped and not self.pending

    # --- events from dispatch -------------------------------------------------------------

    def after_backward(self, loss) -> None:
        """A backward completed: start watching in-place updates when the loop may be manual."""
        if self.real_stepped:
            return
        self._backwards_since_step += 1
        if not self.installed:
            no_optimizer = not any(s.optimizers() for s in self._sessions())
            if not (no_optimizer or self._backwards_since_step >= 2):
                return
            self._learn_leaves(loss)
            instrumentation.attach(OWNER, self)
        self._index_storage()

    def real_step(self) -> None:
        """A torch.optim optimizer steps: the loop is not manual; stop watching for good."""
        self.end()
        if not self.real_stepped:
            self.real_stepped = True
            instrumentation.detach(OWNER, self)

    def end(self) -> None:
        """End the manual step in progress, if any (a loop call or the end of the session)."""
        if not self.pending or self._busy:
            return
        self._expected = len(self.pending)
        self.pending = set()
        self._backwards_since_step = 0
        opt = self.optimizer
        if self._new and opt is not None:  # added between steps, so a step sees one parameter list
            held = {id(p) for p in opt.param_groups[0]["params"]}
            opt.param_groups[0]["params"].extend(p for p in self._new if id(p) not in held)
        self._new = []
        for session in self._sessions():
            session.end_step(opt)

    def uninstall(self) -> None:
        self.reset()

    # --- the wrapped in-place methods ---------------------------------------------------------

    def _wrapper(self, original: Callable) -> Callable:
        tracker = self

        def update(tensor, *args, **kwargs):
            param = None
            if not tracker._busy and tracker._stepping() is None:
                try:
                    param = tracker._param_of(tensor)
                    if param is not None:
                        tracker._before(param, args, kwargs)
                except RuntimeError:  # a tensor without storage (fake, functional): no parameter's alias
                    param = None
                except Exception:  # our bug: recorded, never the user's failure
                    param = None
                    record_internal_error(tracker._sessions(), "manual steps")
            # A torch-function mode calls this method again for the same update: seen once.
            busy, tracker._busy = tracker._busy, True
            try:
                result = original(tensor, *args, **kwargs)
            finally:
                tracker._busy = busy
            if param is not None and len(tracker.pending) == 1 and tracker.optimizer is not None:
                grad = param.grad
                if grad is not None:
                    tracker.optimizer.first_update = (weakref.ref(param), weakref.ref(grad), grad._version)
            if param is not None and tracker._expected is not None and len(tracker.pending) >= tracker._expected:
                tracker.end()  # the last parameter of the pass: the step is complete
            return result

        return update

    def _param_of(self, tensor: torch.Tensor) -> torch.Tensor | None:
        if tensor.requires_grad:
            # A leaf changed in place with recording off: `p -= lr * p.grad` under no_grad.
            if tensor.is_leaf and tensor.grad is not None and not torch.is_grad_enabled():
                return tensor
            return None
        ref = self._by_storage.get(tensor.data_ptr()) if self._by_storage else None
        param = ref() if ref is not None else None
        # `p.data.add_(...)`: the alias shares the parameter's storage, whole.
        if param is not None and param.grad is not None and tensor.shape == param.shape and tensor is not param.grad:
            return param
        return None

    def _before(self, param: torch.Tensor, args: tuple, kwargs: dict) -> None:
        if id(param) in self.pending:
            self.end()  # updated again: the previous pass is over
        if not self.pending:
            self._begin(param, args, kwargs)
        self.pending.add(id(param))
        opt = self.optimizer
        if opt is not None and not any(p is param for p in opt.param_groups[0]["params"]):
            self._new.append(param)

    def _begin(self, param: torch.Tensor, args: tuple, kwargs: dict) -> None:
        where = user_location()
        self._busy = True  # building the stand-in calls no update of ours, but be sure
        try:
            if self.optimizer is None:
                leaves = [p for p in (r() for r in self._known) if p is not None and p.grad is not None]
                if not any(p is param for p in leaves):
                    leaves.append(param)
                alpha = kwargs.get("alpha")
                lr = abs(float(alpha)) if isinstance(alpha, (int, float)) and alpha else math.nan
                # Built like any optimizer, so dispatch tells the sessions of it at the user's line.
                self.optimizer = ManualUpdates(leaves, lr)
                if self._expected is None:
                    self._expected = len(leaves)
        finally:
            self._busy = False
        self.optimizer.updating = weakref.ref(param)
        for session in self._sessions():
            session.begin_step(self.optimizer, where)

    # --- which tensors are parameters -------------------------------------------------------

    def _learn_leaves(self, loss) -> None:
        from graddoctor.graph.walk import trace

        seen: set[int] = set()
        leaves: list[torch.Tensor] = []
        if isinstance(loss, torch.Tensor):
            leaves.extend(trace(loss).leaves)
        # Only the models this loss uses: a model left alive from earlier work (a notebook's
        # previous cell, an earlier section of the script) keeps its old gradients, and
        # expecting its parameters would make the stand-in "hold" tensors no loop updates.
        reached = {id(leaf) for leaf in leaves}
        for session in self._sessions():
            for model in session.models().values():
                params = list(model.parameters())
                if not reached or any(id(p) in reached for p in params):
                    leaves.extend(params)
        for leaf in leaves:
            if id(leaf) not in seen and leaf.requires_grad:
                seen.add(id(leaf))
                self._known.append(weakref.ref(leaf))

    def _index_storage(self) -> None:
        """Storage address -> leaf, for `p.data` aliases (a parameter's storage can be replaced)."""
        index: dict[int, weakref.ref] = {}
        for ref in self._known:
            leaf = ref()
            if leaf is not None and leaf.grad is not None:
                index[leaf.data_ptr()] = ref
        self._by_storage = index
