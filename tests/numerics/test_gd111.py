"""GD111 gradient-always-zero on real programs, and the near misses that must stay silent."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn import functional as F

import graddoctor


def _train(model, steps=12, lr=1e-2, make_batch=None):
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    with graddoctor.watch(model, optimizer) as w:
        for _ in range(steps):
            x, y = make_batch() if make_batch else (torch.randn(32, 8), torch.randn(32, 1))
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
    return [f for f in w.report().findings if f.code == "GD111"]


class RoundedGate(nn.Module):
    """A quantised gate: round() in the path gives the gate's weights a zero gradient."""

    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(x * torch.round(torch.sigmoid(self.gate(x))))


class DeadHead(nn.Module):
    """A regression head ending in a ReLU whose input is negative everywhere."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 16)
        self.head = nn.Linear(16, 1)
        with torch.no_grad():
            self.head.bias.fill_(-100.0)

    def forward(self, x):
        return torch.relu(self.head(torch.tanh(self.body(x))))


def test_round_in_the_path_fires_and_names_the_gate():
    found = _train(RoundedGate())
    assert found, "round() zeroes the gate's gradient on every step"
    subjects = {s for f in found for s in f.subjects}
    assert subjects == {"model.gate.weight", "model.gate.bias"}
    # torch agrees: the gradients exist and are exactly zero
    model = RoundedGate()
    model(torch.randn(4, 8)).sum().backward()
    assert model.gate.weight.grad is not None and not model.gate.weight.grad.any()


def test_dead_final_relu_fires_for_the_whole_model():
    found = _train(DeadHead())
    subjects = {s for f in found for s in f.subjects}
    assert {"model.head.weight", "model.head.bias", "model.body.weight", "model.body.bias"} <= subjects


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_run_points_at_the_clamp_line(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script='''
        import torch
        from torch import nn

        class Scaled(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 1)
                self.scale = nn.Parameter(torch.tensor(5.0))

            def forward(self, x):
                return self.fc(x) * self.scale.clamp(0.1, 2.0)

        model = Scaled()
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        for _ in range(10):
            x, y = torch.randn(16, 8), torch.randn(16, 1)
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
    ''')
    finding = ran.finding("GD111")
    assert finding["line"] == 12 and finding["subjects"] == ["model.scale"]
    assert "clamp" in finding["message"]


# --- near misses -------------------------------------------------------------------------


def test_relu_net_with_some_dead_units_is_silent():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    assert _train(model) == []


def test_frozen_parameters_are_not_reported():
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    model[0].requires_grad_(False)
    assert _train(model) == []


def test_branch_used_on_some_steps_only_is_silent():
    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(8, 8)
            self.a, self.b = nn.Linear(8, 1), nn.Linear(8, 1)
            self.calls = 0

        def forward(self, x):
            self.calls += 1
            head = self.a if self.calls % 3 else self.b
            return head(torch.relu(self.body(x)))

    assert _train(TwoHeads(), steps=15) == []


def test_bias_zeroed_by_a_shift_invariant_loss_is_silent():
    """A WGAN-style critic: D(real).mean() - D(fake).mean() gives the last bias 0 by design."""
    critic = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    optimizer = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
    with graddoctor.watch(critic, optimizer) as w:
        for _ in range(12):
            real, fake = torch.randn(32, 8) + 1, torch.randn(32, 8)
            optimizer.zero_grad()
            loss = critic(fake).mean() - critic(real).mean()
            loss.backward()
            optimizer.step()
    assert [f for f in w.report().findings if f.code == "GD111"] == []


def test_an_earlier_sections_tensors_left_with_zeroed_gradients_are_silent():
    # nn_tutorial style: section 1's module-level tensors keep the zeros of their last `grad.zero_()`
    # while section 2 trains other tensors by hand (both held by the stand-in for a manual optimizer)
    import runpy
    from pathlib import Path

    torch.manual_seed(0)
    with graddoctor.watch() as w:
        runpy.run_path(str(Path(__file__).parent / "programs" / "tutorial_sections.py"), run_name="__main__")
    assert [f for f in w.report().findings if f.code == "GD111"] == [], str(w.report())


def test_a_model_left_alive_by_earlier_work_is_not_judged_with_a_later_manual_loop():
    # A notebook: the first cell trained a classifier and zeroed its gradients in place (kept, not None);
    # a later cell watches a loop that trains other tensors by hand. The old model is alive and
    # discovered, but no loss of this session reaches it: neither "always zero" nor "no gradient".
    import runpy
    from pathlib import Path

    torch.manual_seed(0)
    earlier = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.SGD(earlier.parameters(), lr=0.1)
    for _ in range(5):
        opt.zero_grad(set_to_none=False)
        F.cross_entropy(earlier(torch.randn(16, 8)), torch.randint(0, 2, (16,))).backward()
        opt.step()
    opt.zero_grad(set_to_none=False)
    with graddoctor.watch() as w:
        runpy.run_path(str(Path(__file__).parent / "programs" / "tutorial_sections.py"), run_name="__main__")
    assert [f for f in w.report().findings if f.code in ("GD104", "GD111")] == [], str(w.report())
    assert earlier[0].weight.grad is not None  # the old gradients are still there: the case is real
