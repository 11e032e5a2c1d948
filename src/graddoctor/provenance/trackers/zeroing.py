"""Ops that give a parameter a zero gradient: GD111's causes.

Step functions (round, sign...) everywhere, bounded ops (clamp, relu...) when no element
passes through, and one time step taken from a bidirectional RNN's output (the other
direction's weights then get nothing). Looked for on the first optimizer steps only.
"""

from __future__ import annotations

import torch

from graddoctor.graph.readable import has_values
from graddoctor.graph.walk import trace
from graddoctor.provenance import rnn_steps
from graddoctor.provenance.frames import user_chain
from graddoctor.provenance.op_kinds import BOUNDED
from graddoctor.provenance.records import ZeroingOp
from graddoctor.provenance.trackers.cuts import MAX_WALKS_PER_SITE

Tensor = torch.Tensor
# Zeroing ops are looked for on the first optimizer steps only: GD111 needs a gradient that
# is zero on every step, so those steps show its cause, and later steps pay nothing.
ZERO_WATCH_STEPS = 3
_MAX_SITES = 256


class ZeroingTracker:
    def __init__(self) -> None:
        self.ops: dict[tuple, ZeroingOp] = {}  # by site: ops that gave a zero local gradient
        self.rnn_outputs: dict[int, rnn_steps.Output] = {}  # bidirectional RNN outputs, by id

    def zeroing(self, kind: int, func, args, out: Tensor, frame) -> None:
        x = args[0] if args else None
        if not isinstance(x, Tensor) or out is x:
            return
        if kind is BOUNDED:
            if not (has_values(x) and has_values(out)):
                return  # values that cannot be read (freed storage, a subclass, a transform): not judged
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
        record = self.ops.get(key)
        if record is None:
            if len(self.ops) >= _MAX_SITES:
                return
            record = self.ops[key] = ZeroingOp(name, chain[0], chain, saturated=kind is BOUNDED)
        record.count += 1
        if record.count <= MAX_WALKS_PER_SITE and x.requires_grad:
            record.param_ids |= {id(x)} if x.grad_fn is None else trace(x).leaf_ids

    def rnn_output(self, func, args, out) -> None:
        entry = rnn_steps.note_output(getattr(func, "__name__", ""), args, out)
        if entry is not None:
            if len(self.rnn_outputs) >= 64:
                self.rnn_outputs = {k: v for k, v in self.rnn_outputs.items() if v.ref() is not None}
            self.rnn_outputs[id(entry.ref())] = entry

    def selected(self, func, args, frame) -> None:
        """One time step of a bidirectional RNN's output was taken (GD111's cause when it starves a weight)."""
        entry = self.rnn_outputs.get(id(args[0])) if args else None
        if entry is None or entry.ref() is not args[0]:
            return
        found = rnn_steps.selection(entry, getattr(func, "__name__", ""), args)
        chain = user_chain(frame) if found is not None else []
        if not chain:
            return
        weight, why, fix = found
        key = ("time step", chain[0].file, chain[0].line, weight)
        record = self.ops.get(key)
        if record is None and len(self.ops) < _MAX_SITES:
            record = self.ops[key] = ZeroingOp("indexing", chain[0], chain, saturated=False, param_ids={weight},
                                               why=why, fix=fix)
        if record is not None:
            record.count += 1
