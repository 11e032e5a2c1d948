"""`requires_grad` set by hand: a parameter frozen, or a cut's copy made to require grad.

Freezing a leaf is recorded as a FROZEN cut, carried by the taint like any cut, so that
a parameter without gradient can be traced to the line that froze it.
"""

from __future__ import annotations

import torch

from graddoctor.locate import is_user_file
from graddoctor.provenance.frames import user_chain
from graddoctor.provenance.records import FROZEN, Cut
from graddoctor.provenance.taint import TaintTable
from graddoctor.provenance.trackers.cuts import CutTracker

Tensor = torch.Tensor


class FrozenTracker:
    def __init__(self, cuts: CutTracker, taint: TaintTable) -> None:
        self.cuts = cuts
        self.taint = taint
        self._sites: dict[tuple, Cut] = {}

    def requires_grad_set(self, target: Tensor, frame) -> None:
        """`target.requires_grad` changed, in the op called from `frame`."""
        taint = self.taint.get(target)
        cuts = self.cuts.cuts
        if target.requires_grad:
            frozen = frozenset(i for i in taint if cuts[i].kind == FROZEN)
            if frozen:  # unfrozen again: its later results owe nothing to the freeze
                rest = taint - frozen
                if rest:
                    self.taint.set(target, rest)
                else:
                    self.taint.drop(target)
            self.cuts.revived(taint - frozen, frame)
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
            cut = Cut(id=len(cuts), kind=FROZEN, op=op, location=here, chain=chain,
                      subject=f"all parameters of {type(owner).__name__}" if owner is not None else "")
            cuts.append(cut)
            self._sites[key] = cut
        cut.count += 1
        cut.frozen_ids.add(id(target))
        self.taint.set(target, taint | {cut.id})


def _module_freezing(frame):
    """The module whose `requires_grad_(False)` is running, when a Module method called this."""
    from torch import nn

    while frame is not None and not is_user_file(frame.f_code.co_filename):
        owner = frame.f_locals.get("self") if frame.f_code.co_name == "requires_grad_" else None
        if isinstance(owner, nn.Module):
            return owner
        frame = frame.f_back
    return None
