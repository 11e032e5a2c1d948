"""graddoctor never changes the user's results and always puts torch back as it was."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import torch
from torch import nn

from graddoctor.runner.script import run_target
from graddoctor.session import dispatch

TRAIN = """
import sys
import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)
model = nn.Sequential(nn.Conv1d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 14, 8), nn.LayerNorm(8), nn.Linear(8, 3))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, total_steps=20)
for step in range(20):
    x, y = torch.randn(16, 2, 16), torch.randint(0, 3, (16,))
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
torch.save(model.state_dict(), sys.argv[1])
"""


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_parameters_after_20_steps_are_bit_identical_under_run(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    plain, watched = tmp_path / "plain.pt", tmp_path / "watched.pt"
    subprocess.run([sys.executable, str(script), str(plain)], check=True, cwd=tmp_path)
    subprocess.run([sys.executable, "-m", "graddoctor", "run", "--quiet", "train.py", str(watched)], check=True, cwd=tmp_path)
    a, b = torch.load(plain), torch.load(watched)
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key


def _torch_surface() -> dict:
    """Every object graddoctor may replace while attached, by identity."""
    from torch.amp import grad_scaler
    from torch.nn.utils import clip_grad
    from torch.optim import lr_scheduler, optimizer

    surface = {
        "autograd.backward": torch.autograd.backward,
        "Optimizer.__init__": torch.optim.Optimizer.__dict__["__init__"],
        "Optimizer.zero_grad": torch.optim.Optimizer.__dict__["zero_grad"],
        "Module.zero_grad": nn.Module.__dict__["zero_grad"],
        "pre_hooks": dict(optimizer._global_optimizer_pre_hooks),
        "post_hooks": dict(optimizer._global_optimizer_post_hooks),
    }
    for name in ("clip_grad_norm_", "clip_grad_value_"):
        surface[f"utils.{name}"] = getattr(torch.nn.utils, name)
        surface[f"clip_grad.{name}"] = getattr(clip_grad, name)
    for cls in vars(lr_scheduler).values():
        if isinstance(cls, type) and issubclass(cls, lr_scheduler.LRScheduler):
            surface[f"{cls.__name__}.step"] = cls.__dict__.get("step")
    for name in ("scale", "unscale_", "step", "update"):
        surface[f"GradScaler.{name}"] = grad_scaler.GradScaler.__dict__[name]
    surface["grad_enabled"] = torch.is_grad_enabled()
    return surface


@pytest.mark.parametrize("body", [
    "loss.backward(); opt.step()",
    "loss.backward(); opt.step(); raise KeyError('user bug')",
    "loss.item().backward()",
    "with torch.no_grad():\n    raise ValueError('inside no_grad')",
])
def test_everything_is_restored_after_success_and_after_the_script_raised(tmp_path, monkeypatch, body):
    before = _torch_surface()
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import torch
        model = torch.nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 1)
        loss = model(torch.randn(2, 4)).mean()
    """) + body + "\n")
    monkeypatch.chdir(tmp_path)
    outcome = run_target("train.py", [])
    assert not dispatch.active_sessions()
    after = _torch_surface()
    assert after == before
    if "raise" in body or "item()" in body:
        assert outcome.report.status == "crashed"
        assert outcome.user_exception is not None


def test_run_target_restores_argv_and_sys_path(tmp_path, monkeypatch):
    (tmp_path / "t.py").write_text("import sys\nsys.argv.append('x')\n")
    monkeypatch.chdir(tmp_path)
    argv, path0 = sys.argv[:], sys.path[0]
    run_target("t.py", ["a"])
    assert sys.argv == argv and sys.path[0] == path0


def test_an_observer_failure_never_breaks_the_user_script(tmp_path, monkeypatch):
    from graddoctor.observers import graph as observer

    def broken(self, event):
        raise RuntimeError("observer bug")

    monkeypatch.setattr(observer.GraphObserver, "before_backward", broken)
    (tmp_path / "t.py").write_text(textwrap.dedent("""
        import torch
        m = torch.nn.Linear(2, 1)
        o = torch.optim.SGD(m.parameters(), lr=0.1)
        for _ in range(3):
            o.zero_grad(); m(torch.randn(4, 2)).sum().backward(); o.step()
        print("finished")
    """))
    monkeypatch.chdir(tmp_path)
    outcome = run_target("t.py", [])
    assert outcome.report.status == "completed"
    assert any("observer bug" in e for e in outcome.session.internal_errors)


def test_internal_error_exits_3_with_a_request_to_report(tmp_path, monkeypatch, capsys):
    from graddoctor.cli import main
    from graddoctor.observers import graph as observer

    def broken(self, event):
        raise RuntimeError("observer bug")

    monkeypatch.setattr(observer.GraphObserver, "before_backward", broken)
    (tmp_path / "t.py").write_text("import torch\nm = torch.nn.Linear(2, 1)\nm(torch.randn(3, 2)).sum().backward()\n")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "t.py"]) == 3
    err = capsys.readouterr().err
    assert "internal error" in err and "Please report it" in err and "observer bug" in err
