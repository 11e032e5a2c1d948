"""watch() reads nothing back from the device in steady state: no host synchronisation per step.

On a GPU every `.item()`, `.tolist()`, `bool(t)` ... of a device tensor stalls the
host until the device has caught up. graddoctor's per-step statistics go into one
small tensor per step that is read back one or more steps later (on CUDA from a
non-blocking copy into pinned memory, once its event has completed). These tests
run a real training loop under watch() and count graddoctor's OWN host reads: the
calls made from a frame in the graddoctor package, not the user's own `loss.item()`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from torch import nn
from torch.nn import functional as F
from torch.overrides import TorchFunctionMode

import graddoctor
from graddoctor import watch
from graddoctor.numerics import readout

_PACKAGE = str(Path(graddoctor.__file__).resolve().parent)
_TORCH = str(Path(torch.__file__).resolve().parent)
_READS = {"item", "tolist", "__bool__", "__float__", "__int__", "__index__", "cpu", "numpy", "__array__", "to",
          "__len__", "__iter__", "__format__", "__repr__"}

WARMUP = 12  # the first steps read at once (the loss/data checks look at their first 10 calls)


class HostReads(TorchFunctionMode):
    """Records every host read of a tensor whose caller (past torch's own frames) is graddoctor."""

    def __init__(self) -> None:
        super().__init__()
        self.step = 0
        self.reads: list[tuple[int, str, str]] = []  # (step, what, where)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in _READS and not (name in ("to", "cpu") and not _to_host(name, args, kwargs or {})):
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename.startswith(_TORCH):
                frame = frame.f_back
            # A wrapper that graddoctor put around a torch function (it closes over `original`)
            # passes the user's call through: what torch reads inside is the user's read.
            if frame is not None and frame.f_code.co_filename.startswith(_PACKAGE) \
                    and "original" not in frame.f_code.co_freevars:
                self.reads.append((self.step, name, f"{frame.f_code.co_filename}:{frame.f_lineno}"))
        return func(*args, **(kwargs or {}))


def _to_host(name: str, args, kwargs) -> bool:
    """`.cpu()` / `.to("cpu")` of a tensor that is not on the host already: a read back."""
    if not isinstance(args[0], torch.Tensor) or args[0].device.type == "cpu":
        return False
    if name == "cpu":
        return True
    target = kwargs.get("device", args[1] if len(args) > 1 else None)
    return target is not None and str(target).startswith("cpu")


class Classifier(nn.Module):
    def __init__(self, d: int = 16, classes: int = 4) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, 32), nn.LayerNorm(32), nn.GELU(), nn.Linear(32, 32), nn.GELU())
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        return self.head(self.body(x))


def _batches(n: int, device: str):
    g = torch.Generator().manual_seed(1)
    w = torch.randn(16, 4, generator=g)
    for _ in range(n):
        x = torch.randn(32, 16, generator=g)
        yield x.to(device), (x @ w).argmax(1).to(device)


def _train(steps: int, device: str, mode: HostReads, log: bool = True, strict_from: int | None = None):
    """A classifier trained with AdamW, clipping and a warm-up schedule; the user logs `loss.item()` every 10 steps.

    With `strict_from` (CUDA), every step from that one on runs under
    `torch.cuda.set_sync_debug_mode("error")`: any synchronising call raises.
    """
    torch.manual_seed(0)
    model = Classifier().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10))  # warm-up, per batch
    batches = list(_batches(steps, device))  # on the device before the strict steps: a host-to-device copy syncs
    with watch(model, opt) as w:
        for step, (x, y) in enumerate(batches):
            mode.step = step
            if strict_from is not None and step == strict_from:
                torch.cuda.synchronize()
                torch.cuda.set_sync_debug_mode("error")
            try:
                opt.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()
            finally:
                if strict_from is not None and step == steps - 1:
                    torch.cuda.set_sync_debug_mode("default")
            if log and step % 10 == 0:
                print(f"step {step}: loss {loss.item():.3f}")  # the user's own read: not graddoctor's
        mode.step = steps  # what is read from here on is read at the end of the run
    return w, model


def _track_readouts(monkeypatch, mode: HostReads) -> list[tuple[int, int]]:
    """(step issued, step read) of every read-back: the one place graddoctor reads the device."""
    pairs: list[tuple[int, int]] = []
    init, values = readout.Readout.__init__, readout.Readout.values

    def tracked_init(self, tensor):
        init(self, tensor)
        self._issued_at = mode.step

    def tracked_values(self):
        if getattr(self, "_read_at", None) is None:
            self._read_at = mode.step
            pairs.append((self._issued_at, mode.step))
        return values(self)

    monkeypatch.setattr(readout.Readout, "__init__", tracked_init)
    monkeypatch.setattr(readout.Readout, "values", tracked_values)
    return pairs


def test_no_host_read_per_step_in_steady_state(monkeypatch):
    mode = HostReads()
    pairs = _track_readouts(monkeypatch, mode)
    steps = 40
    with mode:
        w, model = _train(steps, "cpu", mode)
    assert not w.session.internal_errors, w.session.internal_errors
    # Outside the read-back of earlier steps' statistics, graddoctor reads nothing once warmed up.
    readout_file = str(Path(readout.__file__).resolve())
    own = [r for r in mode.reads if r[0] >= WARMUP and not r[2].startswith(readout_file)]
    assert own == [], own
    # The read-backs happen one or more steps after their statistics were reduced on the
    # device, never in the step that produced them (on CUDA: the copy has completed by then).
    late = [(issued, read) for issued, read in pairs if issued >= WARMUP and read < steps]
    assert late, pairs
    assert [(issued, read) for issued, read in late if read <= issued] == []
    # ... and they are what the report is made of: a healthy run, every layer measured.
    report = w.report()
    assert report.ok, str(report)
    rows = {r.name: r for r in report.layers}
    expected = torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in model.head.parameters()])).item()
    assert abs(rows["model.head"].grad_norm - expected) < 1e-4 * max(1.0, expected)


def test_counter_sees_a_host_read_made_by_graddoctor(monkeypatch):
    """The near miss of the test above: a read added to the per-step path is counted."""
    from graddoctor.numerics.layers import LayerStats

    original = LayerStats.before_step

    def reading_before_step(self, event):
        original(self, event)
        if self.meter.pending and self.meter.pending[-1].readout is not None:
            torch.stack([p.grad.norm() for p in event.optimizer.param_groups[0]["params"]]).tolist()

    monkeypatch.setattr(LayerStats, "before_step", reading_before_step)
    mode = HostReads()
    with mode:
        _train(20, "cpu", mode)
    assert [r for r in mode.reads if r[0] >= WARMUP], "a per-step .tolist() in graddoctor went uncounted"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_no_device_sync_on_cuda_in_steady_state():
    mode = HostReads()
    with mode:
        w, _ = _train(60, "cuda", mode, log=False, strict_from=WARMUP)
    assert not w.session.internal_errors, w.session.internal_errors
    assert w.report().ok, str(w.report())
