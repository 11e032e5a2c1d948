"""watch() as a user meets it: results unchanged, memory flat, hooks gone, errors passed on."""

from __future__ import annotations

import gc
import tracemalloc

import pytest
import torch
from torch import nn
from torch.nn import functional as F

import graddoctor
from graddoctor.session import dispatch


def _net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 32), nn.LayerNorm(32), nn.GELU(), nn.Dropout(0.1), nn.Linear(32, 1))


def _train(model, opt, steps, sched=None):
    g = torch.Generator().manual_seed(5)
    for _ in range(steps):
        x = torch.randn(16, 8, generator=g)
        y = x[:, :1] - x[:, 1:2]
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if sched is not None:
            sched.step()


def _patched_state():
    return (torch.autograd.backward, torch.optim.Optimizer.zero_grad, nn.Module.zero_grad,
            torch.nn.utils.clip_grad_norm_, torch.optim.lr_scheduler.LRScheduler.step,
            torch._C._len_torch_function_stack())


def test_exports():
    assert "watch" in graddoctor.__all__ and "GradFlowMonitor" in graddoctor.__all__
    assert callable(graddoctor.watch)


@pytest.mark.parametrize("deep", [False, True])
def test_parameters_bit_identical_after_50_steps(deep):
    results = []
    for watched in (False, True):
        torch.manual_seed(1)
        model = _net()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=50)
        torch.manual_seed(2)  # dropout draws from the global generator
        if watched:
            with graddoctor.watch(model, opt, deep=deep, kept_alive_every=7) as w:
                _train(model, opt, 50, sched)
            assert w.steps == 50 and not w.session.internal_errors
        else:
            _train(model, opt, 50, sched)
        results.append([p.detach().clone() for p in model.parameters()])
    for a, b in zip(*results):
        assert torch.equal(a, b)


def test_memory_held_is_flat_over_1000_steps():
    model = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, y = torch.randn(8, 8), torch.randn(8, 1)
    # history=32: per-layer rows are kept every 5th step (layer_every), so 400 steps fill it
    w = graddoctor.watch(model, opt, kept_alive_every=20, history=32)

    def run(n):
        for _ in range(n):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()

    tracemalloc.start()  # before the warm-up, so that replaced entries count as freed
    with w:
        run(400)  # fill every bounded history (32 update ratios, measured every 10 steps)
        gc.collect()
        before = tracemalloc.take_snapshot()
        run(1000)
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename") if "graddoctor" in s.traceback[0].filename)
    assert grown < 64 * 1024, f"graddoctor grew by {grown} bytes over 1000 steps"
    assert w.steps == 1400


def test_hooks_and_modes_restored_after_success_and_after_error():
    original = _patched_state()
    model = _net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with graddoctor.watch(model, opt, kept_alive_every=1):
        _train(model, opt, 4)
        assert torch.autograd.backward is not original[0]
    assert _patched_state() == original and not dispatch.active_sessions()

    class Boom(RuntimeError):
        pass

    with pytest.raises(Boom):
        with graddoctor.watch(model, opt, kept_alive_every=1):
            _train(model, opt, 2)  # the GD207 window is open now
            assert torch._C._len_torch_function_stack() == 1
            raise Boom("user error")
    assert _patched_state() == original and not dispatch.active_sessions()


def test_attach_detach_and_report_while_attached():
    model = _net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    w = graddoctor.watch(model, opt).attach()
    try:
        for _ in range(3):
            F.mse_loss(model(torch.randn(4, 8)), torch.zeros(4, 1)).backward()
            opt.step()
        assert "GD201" in w.report().codes
    finally:
        w.detach()
    report = w.report()
    assert report.command == "watch" and report.steps_observed == 3
    assert [r.name for r in report.layers] == ["model.0", "model.1", "model.4"]
    assert "GD201" in report.to_json()


def test_unknown_option_is_a_clear_error():
    with pytest.raises(TypeError, match="unknown option.*vanish_ration"):
        graddoctor.watch(vanish_ration=1e-3)


def test_gradflowmonitor_table_plot_and_tensorboard(tmp_path):
    pytest.importorskip("matplotlib")
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1), nn.Linear(1, 1))
    unused = nn.Linear(3, 3)
    model.add_module("unused", unused)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def forward(x):
        return model[2](model[1](model[0](x)))

    with graddoctor.GradFlowMonitor(model) as monitor:
        for _ in range(5):
            opt.zero_grad()
            F.mse_loss(forward(torch.randn(8, 8)), torch.zeros(8, 1)).backward()
            opt.step()
    table = monitor.table()
    assert table.splitlines()[0].split() == ["layer", "mean", "max", "last", "update/w"]
    assert "unused" in table and "no gradient" in table.split("unused")[1].splitlines()[0]
    history = monitor.history()
    assert len(history["model.0"]) == 5
    expected = torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in model[0].parameters()])).item()
    assert abs(history["model.0"][-1][1] - expected) < 1e-5
    png = monitor.plot(str(tmp_path / "flow.png"))
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"

    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(tmp_path / "tb")) as writer:
        monitor.to_tensorboard(writer)
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    assert "grad_norm/model.0" in events.Tags()["scalars"]
    assert len(events.Scalars("grad_norm/model.0")) == 5


def test_watch_plot_writes_a_screen_sized_png_of_the_users_layers(tmp_path):
    pytest.importorskip("matplotlib")
    import struct

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(8, 32)
            self.blocks = nn.ModuleList([nn.Linear(32, 32) for _ in range(3)])
            self.head = nn.Linear(32, 1)

        def forward(self, x):
            x = self.embed(x)
            for block in self.blocks:
                x = torch.relu(block(x))
            return self.head(x)

    model = Encoder()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with graddoctor.watch(model, opt) as w:
        _train(model, opt, 3)
    png = w.plot(str(tmp_path / "flow.png"))
    width, height = struct.unpack(">II", open(png, "rb").read(24)[16:24])
    assert (width, height) == (1200, 700)
    assert [r.name for r in w.report().layers] == ["model.embed", "model.blocks.0", "model.blocks.1", "model.blocks.2",
                                                  "model.head"]
