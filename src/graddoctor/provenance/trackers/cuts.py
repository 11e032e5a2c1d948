"""Cuts: ops whose tensor input requires grad while their result does not.

detach, .data, .item()/.numpy()/.tolist(), a tensor re-wrapped from values, an op
without a derivative (argmax), any op under no_grad or inference_mode. One Cut per
site (records.py); each time, the leaves (parameters) that fed its input are added,
by a graph walk on the first few times per site only.
"""

from __future__ import annotations

import torch

from graddoctor.graph.walk import trace
from graddoctor.locate import Location
from graddoctor.provenance.frames import body_location, reentrant_checkpoint_call, user_chain
from graddoctor.provenance.op_kinds import DATA_GET, DETACH, FACTORY, NUMBER
from graddoctor.provenance.records import CHECKPOINT_INPUT, DATA, FROZEN, GRAD_OFF, NON_DIFFERENTIABLE, REWRAP, Cut
from graddoctor.provenance.records import DETACH as DETACH_CUT
from graddoctor.provenance.records import NUMBER as NUMBER_CUT
from graddoctor.provenance.trackers.grad_mode import GradModeTracker

Tensor = torch.Tensor
_is_inference = torch.is_inference_mode_enabled
MAX_WALKS_PER_SITE = 3


class CutTracker:
    """Makes and counts the cuts (appended to the recorder's `cuts`, their id their index)."""

    def __init__(self, cuts: list[Cut], grad_mode: GradModeTracker) -> None:
        self.cuts = cuts
        self.grad_mode = grad_mode
        self._sites: dict[tuple, Cut] = {}

    def cut(self, kind: int, func, args, kwargs, grad_on: bool, frame) -> Cut | None:
        name = getattr(func, "__name__", str(func))
        if not grad_on or _is_inference():
            regions = self.grad_mode.inference_regions
            region = regions[-1] if _is_inference() and regions else self.grad_mode.region
            if region is not None and not region.user:
                return None
            if region is None and not _is_inference():
                # Grad mode went off without a Python switch: torch runs an autograd.Function's
                # forward so. Its backward gives the gradients (a reentrant checkpoint recomputes
                # the stage), so this is no cut, unless the checkpoint's inputs all lack grad.
                return self._checkpoint_cut(args, kwargs, frame)
            cut_kind = GRAD_OFF
        elif kind is DETACH:
            cut_kind = DETACH_CUT
        elif kind is DATA_GET:
            cut_kind, name = DATA, "data"
        elif kind is NUMBER:
            cut_kind = NUMBER_CUT
        elif kind is FACTORY:
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

    def _checkpoint_cut(self, args, kwargs, frame) -> Cut | None:
        """The cut of a reentrant `checkpoint(stage, x)` none of whose tensor inputs requires grad:
        its output does not either, and the stage's parameters get no gradient. One per call line."""
        call = reentrant_checkpoint_call(frame)
        if call is None:
            return None
        where, inputs_without_grad = call
        if not inputs_without_grad or where is None:
            return None
        key = (CHECKPOINT_INPUT, where.file, where.line)
        cut = self._sites.get(key)
        if cut is None:
            cut = Cut(id=len(self.cuts), kind=CHECKPOINT_INPUT, op="checkpoint", location=where,
                      chain=[where], region_how="`checkpoint(..., use_reentrant=True)`")
            self.cuts.append(cut)
            self._sites[key] = cut
        cut.count += 1
        self._feeders(cut, args, kwargs)
        return cut

    def _feeders(self, cut: Cut, args, kwargs) -> None:
        """Which leaves (parameters) fed the cut's input; graph walks only the first times."""
        walk = cut.count <= MAX_WALKS_PER_SITE
        for group in (args, kwargs.values()):
            for a in group:
                items = a if type(a) in (list, tuple) else (a,)
                for t in items:
                    if isinstance(t, Tensor) and t.requires_grad:
                        if t.grad_fn is None:
                            cut.param_ids.add(id(t))
                        elif walk:
                            cut.param_ids |= trace(t).leaf_ids

    def fed(self, taint: frozenset, args) -> None:
        """A graph-recording op took a value of these cuts: flag them when it also took a trainable leaf."""
        cuts = self.cuts
        if all(cuts[c].fed_trained for c in taint):
            return
        for a in args:
            items = a if type(a) in (list, tuple) else (a,)
            for t in items:
                if isinstance(t, Tensor) and t.requires_grad and t.grad_fn is None:
                    for c in taint:
                        cuts[c].fed_trained = True
                    return

    def revived(self, taint: frozenset, frame) -> None:
        """A cut's copy was made to require grad: backward() will run and stop at it."""
        chain = user_chain(frame, limit=1)
        for cut_id in taint:
            cut = self.cuts[cut_id]
            if cut.revived is None and chain and cut.kind != FROZEN:
                cut.revived = chain[0]

    def rebuilt(self, taint: frozenset, where: Location, how: str) -> None:
        """A tensor was built again from these cuts' values (`torch.tensor(arr)`) at `where`."""
        for cut_id in taint:
            cut = self.cuts[cut_id]
            if cut.rebuilt is None and cut.kind != FROZEN:
                cut.rebuilt = (where, how)
