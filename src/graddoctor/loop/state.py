"""What the loop audit remembers per optimizer, and which parameters a call touches."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from operator import itemgetter

import torch

from graddoctor.locate import NOWHERE, Location

_PARAMS = itemgetter("params")


@dataclass
class GradMark:
    """One representative gradient, to tell whether gradients were cleared in between.

    A cleared gradient is None, a new tensor, or the same tensor written more
    often than the backward passes since account for (a manual `.grad.zero_()`).
    """

    param: weakref.ref
    grad: weakref.ref | None
    version: int
    backwards: int  # the audit's backward count when the mark was taken
    writes: int  # clip/unscale calls (they write gradients in place) at the mark

    @classmethod
    def take(cls, params: list[torch.Tensor], backwards: int, writes: int) -> "GradMark | None":
        for p in params:
            grad = p.grad
            if grad is not None:
                return cls(weakref.ref(p), weakref.ref(grad), grad._version, backwards, writes)
        return None

    def untouched(self, backwards: int, writes: int) -> bool:
        """True when the gradient was neither cleared nor written since the mark."""
        p = self.param()
        grad = p.grad if p is not None else None
        return grad is not None and self.grad is not None and grad is self.grad() and grad._version == self.version

    def cleared(self, backwards: int, writes: int) -> bool:
        p = self.param()
        if p is None:
            return True
        grad = p.grad
        if grad is None or self.grad is None or grad is not self.grad():
            return True
        allowed = (backwards - self.backwards) + (writes - self.writes)
        return grad._version - self.version > allowed


@dataclass
class OptimizerState:
    optimizer: weakref.ref
    param_ids: frozenset = frozenset()
    n_params: int = -1
    steps: int = 0
    last_step_tick: int = -1
    last_zero_tick: int = -1
    grads_tick: int = -1  # the last backward after which this optimizer's params had gradients
    last_zero_where: Location = NOWHERE
    after_zero: GradMark | None = None  # the gradient right after the last zero_grad
    after_step: GradMark | None = None  # the gradient right after the last step
    first_step_where: Location = NOWHERE
    stepped_in_call: bool = False  # set by a step inside scaler.step
    scaler_steps: int = 0
    scaler_skips: int = 0
    scaler_where: Location = NOWHERE
    eval_steps: int = 0
    eval_where: Location = NOWHERE
    eval_modules: list = field(default_factory=list)
    roots: list | None = None
    _shape: tuple = ()
    _params: list = field(default_factory=list)

    def params(self) -> list[torch.Tensor]:
        opt = self.optimizer()
        if opt is None:
            return []
        groups = opt.param_groups
        shape = tuple(map(len, map(_PARAMS, groups)))  # no Python-level call: this runs several times a step
        if shape != self._shape:  # param groups added or changed: read them again
            self._shape = shape
            self._params = [p for g in groups for p in g["params"]]
        return self._params

    def release(self, _ref=None) -> None:
        """The optimizer is freed: let its parameters go too (a model dropped after its fold)."""
        self._params, self._shape = [], ()

    def refresh(self) -> None:
        params = self.params()
        if len(params) != self.n_params:
            self.n_params = len(params)
            self.param_ids = frozenset(map(id, params))

    def has_gradient(self) -> bool:
        """Whether any of its parameters holds a gradient."""
        for p in self.params():
            if p.grad is not None:
                return True
        return False


def param_ids_of(value) -> frozenset | None:
    """Parameter ids of a clip call's first argument, when it can still be read.

    A generator (`model.parameters()`) was consumed by the call itself: None.
    """
    if isinstance(value, torch.Tensor):
        return frozenset([id(value)])
    if isinstance(value, (list, tuple)):
        return frozenset(id(v) for v in value if isinstance(v, torch.Tensor))
    return None
