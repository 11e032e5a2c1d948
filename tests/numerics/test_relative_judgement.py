"""Issue 20: GD303-GD306 judged against the run itself, each firing case next to the near miss it resembles.

A norm, a ratio or a gradient size that looks large or small by a rule of thumb
is not a bug by itself: the warning needs the run's own evidence (growth by orders
of magnitude over its first steps, a loss that shoots up or does not fall, a
gradient that fades along depth, another finding that explains a flat loss).
"""

from __future__ import annotations

import re
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch
from graddoctor.finding import Severity

_SOURCE = Path(__file__).read_text().splitlines()


def line(marker: str) -> int:
    return next(i + 1 for i, text in enumerate(_SOURCE) if text.rstrip().endswith(f"# {marker}"))


def found(w, code: str) -> list:
    assert not w.session.internal_errors, w.session.internal_errors
    return [f for f in w.report().findings if f.code == code]


def _regression(target_scale: float):
    g = torch.Generator().manual_seed(0)
    x = 3 * torch.randn(64, 8, generator=g)
    return x, x @ (target_scale * torch.randn(8, 1, generator=g))


def _fit_linear(lr: float, steps: int, reduction: str = "mean", target_scale: float = 1.0):
    x, y = _regression(target_scale)
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses, norms = [], []
    with watch(model, opt) as w:
        for _ in range(steps):
            opt.zero_grad()
            loss = F.mse_loss(model(x), y, reduction=reduction)
            loss.backward()  # LINEAR BACKWARD
            norms.append(torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in model.parameters()])).item())
            opt.step()  # LINEAR STEP
            losses.append(loss.item())
    return w, losses, norms


# --- GD303 -------------------------------------------------------------------------------------

def test_gd303_gradient_norm_growing_by_orders_of_magnitude_warns():
    # lr past the stable step size of this regression: every step overshoots further
    w, losses, _ = _fit_linear(lr=0.2, steps=14)
    assert losses[-1] > 1e3 * losses[0]  # oracle: the run really diverges
    (f,) = found(w, "GD303")
    assert f.severity == Severity.WARNING and f.line == line("LINEAR BACKWARD")
    ratio = float(re.search(r"([\d.e+]+) times the", f.message).group(1))
    assert ratio >= 1e3


def test_gd303_large_but_steady_norm_of_a_summed_loss_is_silent():
    # reduction='sum' over the batch: norms in the thousands from the first step, and the loss falls
    w, losses, norms = _fit_linear(lr=1e-4, steps=30, reduction="sum", target_scale=10.0)
    assert losses[-1] < 0.5 * losses[0]
    assert norms[0] > 1e4  # above the absolute threshold GD303 once had
    assert found(w, "GD303") == [], str(w.report())
    assert w.report().ok, str(w.report())


# --- GD305 -------------------------------------------------------------------------------------

def test_gd305_too_large_with_a_diverging_loss_warns_and_recommends_a_lower_rate():
    w, _, _ = _fit_linear(lr=0.2, steps=14)
    (f,) = found(w, "GD305")
    assert f.severity == Severity.WARNING and f.line == line("LINEAR STEP")
    assert "too large" in f.message and "shot up" in f.message
    suggested = float(re.search(r"try ([\d.e+-]+)", f.hint).group(1))
    assert suggested < 0.2


class Bigram(nn.Module):
    """A bigram language model: one logits table, started at zero (a uniform first prediction)."""

    def __init__(self, vocab: int = 27) -> None:
        super().__init__()
        self.logits = nn.Parameter(torch.zeros(vocab, vocab))

    def forward(self, idx):
        return self.logits[idx]


def _bigram_data(vocab: int = 27, n: int = 4000):
    g = torch.Generator().manual_seed(0)
    transitions = torch.rand(vocab, vocab, generator=g).pow(8)
    xs = torch.randint(0, vocab, (n,), generator=g)
    return xs, torch.multinomial(transitions[xs], 1, generator=g).squeeze(1)


def test_gd305_does_not_judge_a_table_that_starts_at_zero():
    xs, ys = _bigram_data()
    torch.manual_seed(0)
    model = Bigram()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    with watch(model, opt) as w:
        for i in range(40):
            b = slice(i * 64, i * 64 + 64)
            opt.zero_grad()
            F.cross_entropy(model(xs[b]), ys[b]).backward()
            opt.step()
    assert found(w, "GD305") == [], str(w.report())
    assert w.report().ok, str(w.report())


def test_gd305_large_adam_step_on_a_falling_loss_is_info_with_a_lower_rate():
    # Adam at lr=0.05 on weights of about that size: a large ratio, yet the loss falls
    g = torch.Generator().manual_seed(1)
    x = torch.randn(256, 300, generator=g)
    y = x[:, :4].argmax(dim=1)
    torch.manual_seed(0)
    model = nn.Linear(300, 4)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    with watch(model, opt) as w:
        for i in range(40):
            b = slice((i * 32) % 256, (i * 32) % 256 + 32)
            loss = F.cross_entropy(model(x[b]), y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    assert sum(losses[-8:]) < 0.5 * sum(losses[:8])  # oracle: it learns
    (f,) = found(w, "GD305")
    assert f.severity == Severity.INFO and "information only" in f.message
    assert "below 0.05" in f.hint and "1e-3 is its usual default" in f.hint


# --- GD304 -------------------------------------------------------------------------------------

class AuxDecoderNet(nn.Module):
    """A classifier with an auxiliary reconstruction decoder, as in capsule networks."""

    def __init__(self, depth_activation=nn.ReLU) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(16, 64), depth_activation(), nn.Linear(64, 64), depth_activation())
        self.cls = nn.Linear(64, 4)
        self.dec = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 16))

    def forward(self, x):
        h = self.enc(x)
        return self.cls(h), self.dec(h)


def test_gd304_silent_on_a_decoder_whose_loss_term_is_weighted_down_on_purpose():
    torch.manual_seed(0)
    model = AuxDecoderNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(256, 16)
    y = x[:, :4].argmax(dim=1)
    with watch(model, opt) as w:
        for i in range(30):
            b = slice((i * 32) % 256, (i * 32) % 256 + 32)
            logits, recon = model(x[b])
            loss = F.cross_entropy(logits, y[b]) + 0.0005 * F.mse_loss(recon, x[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
    # oracle: the decoder's gradients really are orders of magnitude below the classifier's
    dec, cls = model.dec[0].weight.grad, model.cls.weight.grad
    assert dec.pow(2).mean().sqrt() < 1e-2 * cls.pow(2).mean().sqrt()
    assert found(w, "GD304") == [], str(w.report())


def test_gd304_still_fires_on_a_deep_sigmoid_stack_under_its_head():
    torch.manual_seed(0)
    layers = []
    for _ in range(10):
        layers += [nn.Linear(16, 16), nn.Sigmoid()]
    model = nn.Sequential(*layers, nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch(model, opt) as w:
        for _ in range(8):
            x, y = torch.randn(64, 16), torch.randn(64, 1)
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
    (f,) = found(w, "GD304")
    assert "model.0" in f.subjects and "model.20" not in f.subjects  # the first layer fades; the head learns
    # oracle: the first layer's gradient is orders of magnitude below the last hidden layer's
    assert model[0].weight.grad.pow(2).mean().sqrt() < 3e-3 * model[18].weight.grad.pow(2).mean().sqrt()


# --- GD306 -------------------------------------------------------------------------------------

def test_gd306_names_the_scheduler_that_explains_a_flat_loss_before_the_data():
    torch.manual_seed(0)
    x = torch.randn(512, 10)
    y = (x[:, :3].sum(dim=1) > 0).long()
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    with watch(model, opt) as w:
        for epoch in range(8):
            for i in range(0, 512, 64):
                opt.zero_grad()
                loss = F.cross_entropy(model(x[i:i + 64]), y[i:i + 64])
                loss.backward()  # FLAT BACKWARD
                opt.step()
                sched.step()  # PER BATCH
    (gd205,) = found(w, "GD205")
    assert gd205.line == line("PER BATCH")
    (f,) = found(w, "GD306")
    assert f.severity == Severity.WARNING and f.line == line("FLAT BACKWARD")
    assert f"GD205 scheduler-misuse at {gd205.file}:{gd205.line}" in f.message
    # the measured cause first (the rate the schedule left), then the finding that explains it
    assert "learning rate schedule brought the rate down" in f.message
    assert f.message.index("learning rate schedule") < f.message.index("GD205")


def test_gd306_without_another_finding_still_points_at_the_data():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    nn.init.zeros_(model[2].weight)
    nn.init.zeros_(model[2].bias)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with watch(model, opt) as w:
        for _ in range(60):
            x, y = torch.randn(64, 8), torch.randint(0, 2, (64,))  # labels unrelated to x
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
    (f,) = found(w, "GD306")
    assert f.severity == Severity.INFO and "look at the data" in f.message and "Other findings" not in f.message
