"""One step numbering (SPEC section 2): every `step` field and every "step N" in a message is the
1-based number of the optimizer step in the run, all optimizers and manual updates counted together,
and `steps_observed` is how many there were.

Each program below is a real tiny training loop whose bug shows at a step known from the code; the
finding's field and its message must both name that step.
"""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch

# "step 3" / "optimizer step 3" name a step; "20 optimizer steps" counts them
_NAMED_STEP = re.compile(r"\bstep (\d+)\b")


def _checked(w) -> dict:
    """The report's findings by code, after checking that their step numbers agree."""
    assert not w.session.internal_errors, w.session.internal_errors
    report = w.report()
    total = report.steps_observed
    assert total == sum(report.steps_by_optimizer.values()) == w.steps
    for f in report.findings:
        named = [int(n) for n in _NAMED_STEP.findall(f.message)]
        if named:
            assert f.step is not None, f"{f.code} names a step but has none: {f.message}"
            # the first number is the finding's own step; a later one (where deep mode found the
            # first NaN) can only come after it
            assert named[0] == f.step and all(f.step <= n <= total for n in named), (f.code, f.step, f.message)
        if f.step is not None:
            assert 1 <= f.step <= total, (f.code, f.step, total)
    return {f.code: f for f in report.findings}


def _net(lr=0.05):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    x = torch.randn(32, 8)
    return model, torch.optim.SGD(model.parameters(), lr=lr), x, x[:, :1] * 2 - x[:, 1:2]


def _gan(lr_g=1e-3):
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    disc = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    return gen, disc, torch.optim.Adam(gen.parameters(), lr=lr_g), torch.optim.Adam(disc.parameters(), lr=1e-3)


def _gan_iteration(gen, disc, opt_g, opt_d, clear_g=True):
    ones, zeros = torch.ones(32, 1), torch.zeros(32, 1)
    fake = gen(torch.randn(32, 4))
    opt_d.zero_grad()
    d_loss = (F.binary_cross_entropy_with_logits(disc(torch.randn(32, 2) + 3), ones)
              + F.binary_cross_entropy_with_logits(disc(fake.detach()), zeros))
    d_loss.backward()
    opt_d.step()
    if clear_g:
        opt_g.zero_grad()
    F.binary_cross_entropy_with_logits(disc(fake), ones).backward()
    opt_g.step()


def test_gd201_names_the_second_step():
    model, opt, x, y = _net()
    with watch(model, opt) as w:
        for _ in range(6):
            F.mse_loss(model(x), y).backward()
            opt.step()
    found = _checked(w)
    assert found["GD201"].step == 2 and "again at step 2" in found["GD201"].message
    assert w.report().steps_observed == 6


def test_gd201_in_a_gan_counts_both_optimizers():
    gen, disc, opt_g, opt_d = _gan()
    with watch({"gen": gen, "disc": disc}, {"opt_g": opt_g, "opt_d": opt_d}) as w:
        for _ in range(5):
            _gan_iteration(gen, disc, opt_g, opt_d, clear_g=False)
    found = _checked(w)
    # opt_d steps 1, 3, 5...; opt_g steps 2, 4...: the generator's second step is the run's 4th
    assert found["GD201"].step == 4 and "Adam stepped again at step 4" in found["GD201"].message
    report = w.report()
    assert report.steps_observed == 10 and report.steps_by_optimizer == {"opt_d": 5, "opt_g": 5}
    assert "10 optimizer steps (opt_d 5, opt_g 5) observed" in str(report)


def test_gd201_by_hand_names_the_second_update():
    torch.manual_seed(0)
    w1 = torch.randn(8, 1, requires_grad=True)
    x = torch.randn(32, 8)
    y = x[:, :1] * 2
    with watch() as w:
        for _ in range(4):
            F.mse_loss(x @ w1, y).backward()
            with torch.no_grad():
                w1 -= 0.01 * w1.grad
    found = _checked(w)
    assert found["GD201"].step == 2 and "by hand again at step 2" in found["GD201"].message
    assert w.report().steps_by_optimizer == {"manual updates": 4}


def test_gd202_names_the_first_step():
    model, opt, x, y = _net()
    with watch(model, opt) as w:
        for _ in range(5):
            F.mse_loss(model(x), y).backward()
            opt.zero_grad()
            opt.step()
    found = _checked(w)
    assert found["GD202"].step == 1


def test_gd204_names_the_first_step_of_the_optimizer_that_does_nothing():
    gen, disc, opt_g, opt_d = _gan(lr_g=0.0)
    with watch({"gen": gen, "disc": disc}, [opt_g, opt_d]) as w:
        for _ in range(5):
            _gan_iteration(gen, disc, opt_g, opt_d)
    found = _checked(w)
    assert found["GD204"].step == 2  # the generator's first step comes after the discriminator's
    # not given by name, and locals of a function are not read: named by class, in order of first step
    assert w.report().steps_by_optimizer == {"Adam": 5, "Adam#2": 5}


def test_gd301_names_the_step_whose_loss_was_nan():
    model, opt, x, y = _net()
    with watch(model, opt) as w:
        for i in range(1, 7):
            opt.zero_grad()
            loss = F.mse_loss(model(x), y) * (float("nan") if i >= 3 else 1.0)
            loss.backward()
            opt.step()
    found = _checked(w)
    assert found["GD301"].step == 3 and "at optimizer step 3" in found["GD301"].message


def test_gd302_names_the_step_whose_gradients_were_nan():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 8)
    with watch(model, opt) as w:
        for i in range(1, 5):
            opt.zero_grad()
            h = model[0](x)
            if i == 2:
                h = torch.sqrt(h.abs() * 0)  # finite forward, infinite derivative at 0
            F.mse_loss(model[1](h), x[:, :1]).backward()
            opt.step()
    found = _checked(w)
    assert found["GD302"].step == 2 and "at optimizer step 2" in found["GD302"].message


@pytest.mark.parametrize("case", ["exploding", "tiny lr", "scaler skips", "scheduler per batch"])
def test_other_step_based_rules_agree(case):
    torch.manual_seed(0)
    if case == "exploding":
        # a regression whose SGD step is too large: the gradient norm grows step after step
        model = nn.Sequential(nn.Linear(16, 16))
        x, y = 3 * torch.randn(32, 16), torch.randn(32, 16)
        opt = torch.optim.SGD(model.parameters(), lr=2.0)
        expected = "GD303"
    else:
        model, opt, x, y = _net(lr=1e-9 if case == "tiny lr" else 0.05)
        expected = {"tiny lr": "GD305", "scaler skips": "GD307", "scheduler per batch": "GD205"}[case]
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16, growth_interval=1, backoff_factor=0.999)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    with watch(model, opt) as w:
        for _ in range(40 if case in ("tiny lr", "scheduler per batch") else 12):
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            if case == "scaler skips":
                scaler.scale(loss * 1e36).backward()  # overflows once scaled
                scaler.step(opt)
                scaler.update()
                continue
            loss.backward()
            opt.step()
            if case == "scheduler per batch":
                sched.step()
    assert expected in _checked(w)


@pytest.mark.slow  # a `graddoctor run` subprocess
def test_cli_header_field_message_footer_and_max_steps_agree(graddoctor_cli):
    ran = graddoctor_cli("run", "--max-steps", "8", "train.py", script='''
        import torch
        from torch import nn
        from torch.nn import functional as F

        torch.manual_seed(0)
        G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
        opt_G = torch.optim.Adam(G.parameters(), lr=1e-3)
        opt_D = torch.optim.Adam(D.parameters(), lr=1e-3)
        ones, zeros = torch.ones(32, 1), torch.zeros(32, 1)
        for _ in range(100):
            fake = G(torch.randn(32, 4))
            opt_D.zero_grad()
            d_loss = (F.binary_cross_entropy_with_logits(D(torch.randn(32, 2) + 3), ones)
                      + F.binary_cross_entropy_with_logits(D(fake.detach()), zeros))
            d_loss.backward()
            opt_D.step()
            F.binary_cross_entropy_with_logits(D(fake), ones).backward()  # opt_G never zero_grads
            opt_G.step()
    ''')
    assert ran.returncode == 1, ran.stdout + ran.stderr
    report = ran.report
    assert report["status"] == "stopped" and report["steps_observed"] == 8
    assert report["steps_by_optimizer"] == {"opt_D": 4, "opt_G": 4}
    gd201 = ran.finding("GD201")
    assert gd201["step"] == 4 and "again at step 4" in gd201["message"]
    assert re.search(r"error GD201 missing-zero-grad\s+train\.py:\d+:\d+\s+step 4\n", ran.stdout), ran.stdout
    assert "8 optimizer steps (opt_D 4, opt_G 4) observed" in ran.stdout


def test_optimizers_built_inside_a_function_are_named_by_the_variables_they_were_assigned_to():
    def main():
        torch.manual_seed(0)
        gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        disc = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
        with watch({"gen": gen, "disc": disc}) as w:
            opt_gen = torch.optim.Adam(gen.parameters(), lr=1e-3)
            opt_disc = torch.optim.Adam(
                disc.parameters(), lr=1e-3,
            )
            for _ in range(3):
                _gan_iteration(gen, disc, opt_gen, opt_disc)
        return w

    assert main().report().steps_by_optimizer == {"opt_disc": 3, "opt_gen": 3}
