"""SPEC section 5's correct loops stay silent under watch(): no error, no warning."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch


def _data(n=32, d=8):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, d, generator=g)
    return x, (x[:, :1] * 2 - x[:, 1:2])


def _mlp(d=8, out=1):
    return nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Linear(16, out))


def _assert_silent(w):
    report = w.report()
    bad = [f for f in report.findings if f.severity >= 2]
    assert not bad, str(report)
    assert not w.session.internal_errors, w.session.internal_errors


def test_plain_loop_with_zero_grad_at_start_set_to_none():
    x, y = _data()
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with watch(model, opt) as w:
        for _ in range(40):
            opt.zero_grad(set_to_none=True)
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
    _assert_silent(w)


def test_gradient_accumulation_with_loss_over_k():
    x, y = _data(64)
    model = _mlp()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    k = 4
    with watch(model, opt) as w:
        for step in range(40):
            for i in range(k):
                xb, yb = x[i * 16:(i + 1) * 16], y[i * 16:(i + 1) * 16]
                (F.mse_loss(model(xb), yb) / k).backward()
            opt.step()
            opt.zero_grad()
    _assert_silent(w)


def test_module_zero_grad_and_set_to_none_false():
    x, y = _data()
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    with watch(model, opt) as w:
        for _ in range(35):
            model.zero_grad(set_to_none=False)
            F.mse_loss(model(x), y).backward()
            opt.step()
    _assert_silent(w)


def test_manual_grad_clearing_loop():
    x, y = _data()
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    with watch(model, opt) as w:
        for step in range(35):
            F.mse_loss(model(x), y).backward()
            opt.step()
            for p in model.parameters():
                if step % 2:
                    p.grad = None
                else:
                    p.grad.zero_()
    _assert_silent(w)


def test_onecycle_and_warmup_per_batch_and_plateau_per_epoch():
    x, y = _data()
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model2 = _mlp()
    opt2 = torch.optim.Adam(model2.parameters(), lr=1e-3)
    onecycle = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=60)
    warm = torch.optim.lr_scheduler.LambdaLR(opt2, lambda s: min(1.0, (s + 1) / 20))
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1)
    with watch({"model": model, "model2": model2}, [opt, opt2]) as w:
        for epoch in range(6):
            for batch in range(10):
                opt.zero_grad()
                loss = F.mse_loss(model(x), y)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                onecycle.step()
                opt2.zero_grad()
                F.mse_loss(model2(x), y).backward()
                opt2.step()
                warm.step()
            plateau.step(loss.item())
    _assert_silent(w)


def test_amp_gradscaler_with_unscale_before_clip():
    x, y = _data()
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cpu")
    with watch(model, opt) as w:
        for _ in range(35):
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = F.mse_loss(model(x).float(), y)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
    _assert_silent(w)


def test_retain_graph_two_backward_passes():
    x, y = _data()
    model = _mlp(out=2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    with watch(model, opt) as w:
        for _ in range(35):
            opt.zero_grad()
            out = model(x)
            a = F.mse_loss(out[:, :1], y)
            b = F.mse_loss(out[:, 1:], -y)
            a.backward(retain_graph=True)
            b.backward()
            opt.step()
    _assert_silent(w)


def test_gan_with_detach_two_optimizers():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real = torch.randn(32, 8) * 0.5 + 1
    bce = nn.BCEWithLogitsLoss()
    with watch({"G": G, "D": D}, [opt_g, opt_d], stall_steps=10**9) as w:
        for _ in range(35):
            z = torch.randn(32, 4)
            fake = G(z)
            opt_d.zero_grad()
            loss_d = bce(D(real), torch.ones(32, 1)) + bce(D(fake.detach()), torch.zeros(32, 1))
            loss_d.backward()
            opt_d.step()
            opt_g.zero_grad()
            loss_g = bce(D(fake), torch.ones(32, 1))
            loss_g.backward()
            opt_g.step()
    _assert_silent(w)


def test_actor_critic_two_optimizers_one_backward():
    torch.manual_seed(0)
    actor, critic = nn.Linear(6, 3), nn.Linear(6, 1)
    opt_a = torch.optim.Adam(actor.parameters(), lr=1e-3)
    opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3)
    with watch({"actor": actor, "critic": critic}, [opt_a, opt_c], stall_steps=10**9) as w:
        for _ in range(35):
            s = torch.randn(16, 6)
            ret = torch.randn(16, 1)
            dist = torch.distributions.Categorical(logits=actor(s))
            a = dist.sample()
            value = critic(s)
            adv = (ret - value).detach()
            loss = -(dist.log_prob(a) * adv.squeeze(1)).mean() + F.mse_loss(value, ret)
            opt_a.zero_grad()
            opt_c.zero_grad()
            loss.backward()
            opt_a.step()
            opt_c.step()
    _assert_silent(w)


def test_frozen_backbone_teacher_and_ema():
    torch.manual_seed(0)
    backbone, head = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16)), nn.Linear(16, 1)
    backbone.requires_grad_(False)
    backbone.eval()
    teacher = _mlp()
    ema = _mlp()
    x, y = _data()
    opt = torch.optim.SGD(head.parameters(), lr=0.05)
    with watch(optimizer=opt) as w:
        total = 0.0
        for _ in range(35):
            opt.zero_grad()
            with torch.no_grad():
                target = teacher(x)
            loss = F.mse_loss(head(backbone(x)), y) + 0.0 * F.mse_loss(head(backbone(x)), target)
            loss.backward()
            opt.step()
            total += loss.item()
            with torch.no_grad():
                for pe, pt in zip(ema.parameters(), teacher.parameters()):
                    pe.mul_(0.9).add_(pt, alpha=0.1)
    _assert_silent(w)


def test_rnn_hidden_state_detached_each_step():
    torch.manual_seed(0)
    rnn, out = nn.GRU(4, 8, batch_first=True), nn.Linear(8, 1)
    opt = torch.optim.Adam(list(rnn.parameters()) + list(out.parameters()), lr=1e-2)
    h = torch.zeros(1, 16, 8)
    with watch(optimizer=opt, kept_alive_every=5) as w:
        for _ in range(35):
            x = torch.randn(16, 5, 4)
            y = x.sum(dim=(1, 2)).unsqueeze(1)
            opt.zero_grad()
            o, h = rnn(x, h)
            h = h.detach()
            loss = F.mse_loss(out(o[:, -1]), y)
            loss.backward()
            opt.step()
    _assert_silent(w)
