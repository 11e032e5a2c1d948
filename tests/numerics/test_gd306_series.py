"""GD306 per loss series: phases, adversarial pairs and policy-gradient losses stay quiet; real stalls warn."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch
from graddoctor.finding import Severity

_SOURCE = Path(__file__).read_text().splitlines()


def line(marker: str) -> int:
    return next(i + 1 for i, text in enumerate(_SOURCE) if text.rstrip().endswith(f"# {marker}"))


def gd306(w) -> list:
    assert not w.session.internal_errors, w.session.internal_errors
    return [f for f in w.report().findings if f.code == "GD306"]


def series_of(w) -> list:
    stats = next(o for o in w.session.observers if o.name == "layers").record
    return list(stats.loss_series.series.values())


def _regression(seed=0, n=256):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=g)
    return x, x @ torch.randn(4, 1, generator=g)


def _sgd_regression(lr: float):
    x, y = _regression()
    torch.manual_seed(1)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    with watch(model, optimizer) as w:
        for i in range(60):
            xb, yb = x[(i * 32) % 256:][:32], y[(i * 32) % 256:][:32]
            loss = F.mse_loss(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()  # DIVERGE
            optimizer.step()
    return w


def test_supervised_loss_that_diverges_warns():
    found = gd306(_sgd_regression(lr=0.9))  # just past the stable step size
    assert [f.line for f in found] == [line("DIVERGE")]
    assert found[0].severity == Severity.WARNING
    assert "rose over 60 optimizer steps" in found[0].message


def test_same_loop_with_a_stable_step_size_is_silent():
    assert gd306(_sgd_regression(lr=0.1)) == []


def _classifier():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))


def _batch():
    x = torch.randn(32, 10)
    return x, x[:, :3].argmax(1)


def _classify(model, optimizer, watched):
    with watch(watched, optimizer) as w:
        for _ in range(50):
            x, y = _batch()
            loss = F.cross_entropy(model(x), y)  # LOSS
            optimizer.zero_grad()
            loss.backward()  # FLAT
            optimizer.step()
    return w


def test_flat_loss_with_learning_rate_zero_warns_with_the_cause():
    model = _classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0, momentum=0.9)
    found = gd306(_classify(model, optimizer, model))
    assert [f.line for f in found] == [line("FLAT")]
    assert found[0].severity == Severity.WARNING
    assert "the learning rate is 0" in found[0].message


def test_flat_loss_with_no_gradient_on_the_optimized_parameters_warns():
    model = _classifier()
    unused_head = nn.Linear(32, 3)  # the optimizer holds a head the forward never calls
    optimizer = torch.optim.Adam(unused_head.parameters(), lr=1e-2)
    w = _classify(model, optimizer, {"model": model, "unused_head": unused_head})
    assert not w.report().ok
    found = gd306(w)
    # the optimizer's parameters went unreached, so one step was recorded deeply: it names the loss line
    assert [f.line for f in found] == [line("LOSS")]
    assert found[0].severity == Severity.WARNING
    assert "no parameter has a gradient" in found[0].message


def test_a_phase_with_a_new_optimizer_is_its_own_series():
    """Teacher then student through one train() function: two series at one backward line."""
    def train(model, optimizer, steps):
        for _ in range(steps):
            x, y = _batch()
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    teacher, student = _classifier(), nn.Sequential(nn.Linear(10, 8), nn.ReLU(), nn.Linear(8, 3))
    with watch({"teacher": teacher, "student": student}) as w:
        train(teacher, torch.optim.Adam(teacher.parameters(), lr=1e-2), 40)
        train(student, torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9), 40)
    series = series_of(w)
    assert [s.count for s in series] == [40, 40]
    assert series[0].where.line == series[1].where.line
    # every optimizer step of the run, both phases: each optimizer's own under its class name
    assert w.report().steps_observed == 80 and w.report().steps_by_optimizer == {"Adam": 40, "SGD": 40}
    assert gd306(w) == []


def test_gan_losses_form_an_adversarial_pair_and_a_supervised_pair_does_not():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    opt_g, opt_d = torch.optim.Adam(G.parameters(), lr=2e-4), torch.optim.Adam(D.parameters(), lr=2e-4)
    with watch({"G": G, "D": D}) as w:
        for _ in range(8):
            fake = G(torch.randn(16, 4))
            d_loss = F.softplus(-D(torch.randn(16, 8))).mean() + F.softplus(D(fake.detach())).mean()
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = F.softplus(-D(fake)).mean()
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
    stats = next(o for o in w.session.observers if o.name == "layers").record
    series = series_of(w)
    assert len(series) == 2 and all(stats.loss_series.adversarial(s) for s in series)
    assert not any(s.graph.policy for s in series)


def test_policy_gradient_loss_is_recognised_and_cross_entropy_is_not():
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
    critic = nn.Linear(4, 1)
    opt_pi = torch.optim.Adam(policy.parameters(), lr=1e-3)
    opt_v = torch.optim.Adam(critic.parameters(), lr=1e-3)
    with watch({"policy": policy, "critic": critic}) as w:
        for _ in range(6):
            s = torch.randn(8, 4)
            dist = torch.distributions.Categorical(logits=policy(s))
            a = dist.sample()
            ret = (a == 1).float()
            value = critic(s).squeeze(1)
            actor_loss = -(dist.log_prob(a) * (ret - value).detach()).mean()
            opt_pi.zero_grad()
            actor_loss.backward()
            opt_pi.step()
            critic_loss = F.mse_loss(value, ret)
            opt_v.zero_grad()
            critic_loss.backward()
            opt_v.step()
    policy_flags = [s.graph.policy for s in series_of(w)]
    assert policy_flags == [True, False]
