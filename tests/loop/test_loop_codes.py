"""Each loop code fires on a real broken loop, at the user's line."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch

_SOURCE = Path(__file__).read_text().splitlines()


def line(marker: str) -> int:
    return next(i + 1 for i, text in enumerate(_SOURCE) if text.rstrip().endswith(f"# {marker}"))


def finding(w, code):
    report = w.report()
    found = [f for f in report.findings if f.code == code]
    assert found, f"no {code}:\n{report}"
    assert not w.session.internal_errors, w.session.internal_errors
    f = found[0]
    assert f.file is not None and Path(f.file).name == Path(__file__).name
    return f


def _setup(lr=0.05, dropout=False):
    torch.manual_seed(0)
    layers = [nn.Linear(8, 16), nn.ReLU()] + ([nn.Dropout(0.1)] if dropout else []) + [nn.Linear(16, 1)]
    model = nn.Sequential(*layers)
    x = torch.randn(32, 8)
    return model, torch.optim.SGD(model.parameters(), lr=lr), x, x[:, :1] * 2


def test_gd201_missing_zero_grad():
    model, opt, x, y = _setup()
    with watch(model, opt) as w:
        for _ in range(5):
            F.mse_loss(model(x), y).backward()
            opt.step()  # GD201
    f = finding(w, "GD201")
    assert f.line == line("GD201")


def test_gd202_zero_grad_between_backward_and_step():
    model, opt, x, y = _setup()
    with watch(model, opt) as w:
        for _ in range(5):
            F.mse_loss(model(x), y).backward()
            opt.zero_grad()  # GD202
            opt.step()
    f = finding(w, "GD202")
    assert f.line == line("GD202")
    assert "GD204" not in w.report().codes  # the same cause, said once


def test_gd202_with_set_to_none_false():
    model, opt, x, y = _setup()
    with watch(model, opt) as w:
        for _ in range(5):
            F.mse_loss(model(x), y).backward()
            model.zero_grad(set_to_none=False)  # GD202 module
            opt.step()
    assert finding(w, "GD202").line == line("GD202 module")


def test_gd203_no_optimizer_step():
    model, opt, x, y = _setup()
    with watch(model, opt) as w:
        for _ in range(5):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()  # GD203
    assert finding(w, "GD203").line == line("GD203")


def test_gd203_silent_with_manual_updates():
    model, opt, x, y = _setup()
    with watch(model) as w:
        for _ in range(5):
            model.zero_grad()
            F.mse_loss(model(x), y).backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= 0.01 * p.grad
    assert "GD203" not in w.report().codes


def test_gd204_lr_zero():
    model, opt, x, y = _setup(lr=0.0)
    with watch(model, opt) as w:
        for _ in range(5):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()  # GD204
    f = finding(w, "GD204")
    assert f.line == line("GD204") and "learning rate" in f.message


def test_gd205_scheduler_before_first_step():
    model, opt, x, y = _setup()
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=10)
    with watch(model, opt) as w:
        for _ in range(5):
            sched.step()  # GD205 early
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
    assert finding(w, "GD205").line == line("GD205 early")


def test_gd205_epoch_scheduler_per_batch():
    model, opt, x, y = _setup()
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    with watch(model, opt) as w:
        for _ in range(40):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()  # GD205 per batch
    f = finding(w, "GD205")
    assert f.line == line("GD205 per batch") and "StepLR" in f.message


def test_gd205_steplr_per_epoch_is_silent():
    model, opt, x, y = _setup()
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    with watch(model, opt) as w:
        for epoch in range(6):
            for _ in range(8):
                opt.zero_grad()
                F.mse_loss(model(x), y).backward()
                opt.step()
            sched.step()
    assert "GD205" not in w.report().codes


def test_gd206_clip_after_step():
    model, opt, x, y = _setup()
    with watch(model, opt) as w:
        for _ in range(5):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # GD206
    assert finding(w, "GD206").line == line("GD206")


def test_gd207_running_total_keeps_graph():
    model, opt, x, y = _setup()
    with watch(model, opt, kept_alive_every=3) as w:
        total = 0
        for _ in range(12):
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            total += loss  # GD207 total
    f = finding(w, "GD207")
    assert f.line == line("GD207 total")


def test_gd207_outputs_appended_to_list():
    model, opt, x, y = _setup()
    outputs = []
    with watch(model, opt, kept_alive_every=3) as w:
        for _ in range(12):
            opt.zero_grad()
            out = model(x)  # GD207 list
            outputs.append(out)
            F.mse_loss(out, y).backward()
            opt.step()
    assert finding(w, "GD207").line == line("GD207 list")


def test_gd207_silent_with_item():
    model, opt, x, y = _setup()
    logged = []
    with watch(model, opt, kept_alive_every=3) as w:
        total = 0.0
        for _ in range(12):
            opt.zero_grad()
            out = model(x)
            loss = F.mse_loss(out, y)
            loss.backward()
            opt.step()
            total += loss.item()
            logged.append(out.detach())
    assert "GD207" not in w.report().codes


def test_gd208_training_in_eval_mode():
    model, opt, x, y = _setup(dropout=True)
    model.eval()
    with watch(model, opt) as w:
        for _ in range(5):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()  # GD208
    f = finding(w, "GD208")
    assert f.line == line("GD208") and "Dropout" in f.message


def test_gd208_silent_in_train_mode_after_eval():
    model, opt, x, y = _setup(dropout=True)
    with watch(model, opt) as w:
        for epoch in range(2):
            model.train()
            for _ in range(4):
                opt.zero_grad()
                F.mse_loss(model(x), y).backward()
                opt.step()
            model.eval()
            with torch.no_grad():
                model(x)
    assert "GD208" not in w.report().codes


def test_gd209_clip_without_unscale():
    model, opt, x, y = _setup()
    scaler = torch.amp.GradScaler("cpu")
    with watch(model, opt) as w:
        for _ in range(5):
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = F.mse_loss(model(x).float(), y)
            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # GD209
            scaler.step(opt)
            scaler.update()
    assert finding(w, "GD209").line == line("GD209")
    assert "GD206" not in w.report().codes


def test_gd307_scaler_skips_most_steps():
    model, opt, x, y = _setup()
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16, growth_interval=1, backoff_factor=0.999)
    with watch(model, opt) as w:
        for _ in range(12):
            opt.zero_grad()
            loss = F.mse_loss(model(x), y) * 1e36  # overflows once scaled
            scaler.scale(loss).backward()
            scaler.step(opt)  # GD307
            scaler.update()
    assert finding(w, "GD307").line == line("GD307")
