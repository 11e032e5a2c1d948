"""One time step taken from a bidirectional RNN's output: what GD111 names when that zeroes a gradient.

`out[:, -1, :]` of a bidirectional LSTM keeps the reverse direction's output at the
last time step, where that direction (which runs from the end) has read a single
token from its zero initial state: the gradient of its last layer's hidden-to-hidden
weights is then exactly zero. `out[:, 0, :]` does the same to the forward direction.
The recorder notes each bidirectional RNN output (`note_output`) and, when one time
step of it is selected, which weight that leaves without gradient (`selection`).
"""

from __future__ import annotations

import weakref

import torch

RNN_OPS = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN", "rnn_relu": "RNN"}
SELECT_OPS = {"__getitem__", "select"}


class Output:
    """A bidirectional RNN's output tensor (held weakly) and the two weights a selection can starve."""

    def __init__(self, out: torch.Tensor, kind: str, time_dim: int, forward_hh: int, reverse_hh: int) -> None:
        self.ref = weakref.ref(out)
        self.kind, self.time_dim = kind, time_dim
        self.forward_hh, self.reverse_hh = forward_hh, reverse_hh


def note_output(name: str, args: tuple, out) -> Output | None:
    """The output of `torch._VF.lstm(input, hx, weights, bias, layers, dropout, train, bidirectional,
    batch_first)` (and gru, rnn_*) when bidirectional; None for packed sequences and one direction."""
    if len(args) < 9 or type(args[3]) is not bool or not args[7] or type(out) is not tuple:
        return None
    output, weights, layers = out[0], args[2], args[4]
    if not isinstance(output, torch.Tensor) or not output.requires_grad or not layers:
        return None
    per = len(weights) // (layers * 2)  # w_ih, w_hh[, b_ih, b_hh][, w_hr] per layer and direction
    if per < 2 or per * layers * 2 != len(weights):
        return None
    last = (layers - 1) * 2 * per
    return Output(output, RNN_OPS[name], 1 if args[8] else 0, id(weights[last + 1]), id(weights[last + per + 1]))


def selection(entry: Output, name: str, args: tuple) -> tuple[int, str, str] | None:
    """(weight id, why, fix) when `args` select the first or last time step of `entry`'s output."""
    x = args[0]
    steps = x.shape[entry.time_dim] if x.dim() > entry.time_dim else 0
    index = _time_index(name, args, entry.time_dim)
    if index is None or steps < 2 or not -steps <= index < steps:
        return None
    index %= steps
    if index not in (0, steps - 1):
        return None
    last = index == steps - 1
    direction = "reverse" if last else "forward"
    which = "last" if last else "first"
    why = (f"the indexing at {{where}} keeps only the {which} time step of the bidirectional {entry.kind}'s output, "
           f"where its {direction} direction (which reads the sequence from the "
           f"{'end' if last else 'start'}) has seen a single token from its zero initial state, so the gradient "
           f"of that direction's last-layer hidden-to-hidden weights is exactly 0 there")
    state = "out, (h_n, c_n)" if entry.kind == "LSTM" else "out, h_n"
    fix = ("Give the head a summary of the whole sequence from both directions: their final hidden states, "
           f"`torch.cat([h_n[-2], h_n[-1]], dim=1)` from `{state} = {entry.kind.lower()}(x)`, or each "
           "direction's output where it has read every token, `torch.cat([out[:, -1, :hidden], out[:, 0, hidden:]], "
           "dim=1)` (batch_first=True).")
    return (entry.reverse_hh if last else entry.forward_hh), why, fix


def _time_index(name: str, args: tuple, time_dim: int) -> int | None:
    if name == "select":
        dim, index = (args[1], args[2]) if len(args) >= 3 else (None, None)
        if type(dim) is int and dim % args[0].dim() == time_dim and type(index) is int:
            return index
        return None
    index = args[1] if len(args) > 1 else None
    index = index if type(index) is tuple else (index,)
    if any(i is Ellipsis or i is None for i in index) or len(index) <= time_dim:
        return None
    if any(type(i) is not slice for i in index[:time_dim]):
        return None  # an earlier integer index shifts the dimensions
    chosen = index[time_dim]
    return chosen if type(chosen) is int else None
