"""GD207 judges a graph by how long it lives, not by how it was stored.

Each correct pattern keeps graphs only until the backward that uses them, or
for one iteration (SPEC section 5): a REINFORCE episode's per-step lists, a
metric read with `topk`/`max` from the step's logits after `step()`, a MAML
outer step's task losses. Next to each, the same program with one line that
keeps the history across optimizer steps must still fire, at that line.
"""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn
from torch.func import functional_call
from torch.nn import functional as F

from graddoctor import watch


def _line(tag: str) -> int:
    return next(i + 1 for i, t in enumerate(open(__file__).read().splitlines()) if t.rstrip().endswith(tag))


def _gd207(w) -> list:
    assert not w.session.internal_errors, w.session.internal_errors
    return [f for f in w.report().findings if f.code == "GD207"]


def _reinforce(keep: bool):
    """A policy walks a 1-D track towards +1; one episode is 16 steps, one update per episode."""
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 3))
    value = nn.Linear(2, 1)
    optimizer = torch.optim.Adam([*policy.parameters(), *value.parameters()], lr=1e-2)
    history = []
    with watch({"policy": policy, "value": value}, optimizer) as w:
        for episode in range(12):
            pos, log_probs, value_losses, rewards = 0.0, [], [], []
            for t in range(16):
                state = torch.tensor([pos, t / 16])
                dist = torch.distributions.Categorical(logits=policy(state))
                action = dist.sample()
                pos = min(max(pos + 0.1 * (action.item() - 1), -1.0), 1.0)
                log_probs.append(dist.log_prob(action))
                rewards.append(pos)
                value_losses.append(F.smooth_l1_loss(value(state), torch.tensor([sum(rewards)])))
            returns = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
            loss = -(torch.stack(log_probs) * (returns - returns.mean())).sum() + torch.stack(value_losses).sum()  # RL
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            log_probs.clear()
            value_losses.clear()
            history.append(loss if keep else loss.item())
    return w


def _topk_metric(keep: bool):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 5))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    correct, scores = 0, []
    with watch(model, optimizer) as w:
        for _ in range(16):
            x = torch.randn(32, 12)
            y = x[:, :5].argmax(1)
            out = model(x)
            loss = F.cross_entropy(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            _, pred = out.topk(1, 1)
            correct += pred.squeeze(1).eq(y).sum().item()
            best, _ = out.max(1)  # TOPK
            scores.append(best if keep else best.detach())
    return w


def _maml(keep: bool):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 1))
    meta_optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    meta_losses = []
    with watch(model, meta_optimizer) as w:
        for _ in range(8):
            task_losses = []
            for _ in range(12):  # tasks per meta-batch: more than a handful of losses alive at once
                amplitude, phase = torch.rand(()) * 4 + 1, torch.rand(()) * math.pi
                x = torch.rand(20, 1) * 10 - 5
                y = amplitude * torch.sin(x + phase)
                fast = dict(model.named_parameters())
                for _ in range(2):
                    inner = F.mse_loss(functional_call(model, fast, (x[:10],)), y[:10])
                    grads = torch.autograd.grad(inner, list(fast.values()), create_graph=True)
                    fast = {n: p - 0.01 * g for (n, p), g in zip(fast.items(), grads)}
                task_losses.append(F.mse_loss(functional_call(model, fast, (x[10:],)), y[10:]))
            meta_loss = torch.stack(task_losses).mean()  # MAML
            meta_optimizer.zero_grad()
            meta_loss.backward()
            meta_optimizer.step()
            meta_losses.append(meta_loss if keep else meta_loss.item())
    return w


# the line named: where the history that is kept was made
PATTERNS = {"reinforce_episode_lists": (_reinforce, "# RL"), "topk_after_step": (_topk_metric, "# TOPK"),
            "maml_outer_step": (_maml, "# MAML")}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_history_released_within_the_next_step_is_silent(name):
    train, _ = PATTERNS[name]
    assert _gd207(train(keep=False)) == []


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_the_same_history_kept_across_steps_fires(name):
    train, tag = PATTERNS[name]
    found = _gd207(train(keep=True))
    assert [f.line for f in found] == [_line(tag)]


def test_loss_pile_never_backpropagated_fires_when_it_dies():
    """An evaluation without no_grad, between training steps: its pile dies before any backward uses it."""
    torch.manual_seed(0)
    model = nn.Linear(6, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    with watch(model, optimizer) as w:
        for _ in range(3):
            x = torch.randn(16, 6)
            loss = F.mse_loss(model(x), x[:, :1])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            val = [F.mse_loss(model(torch.randn(16, 6)), torch.zeros(16, 1)) for _ in range(12)]  # EVAL PILE
            print(float(sum(val)) / len(val))
    [f] = _gd207(w)
    assert f.line == _line("# EVAL PILE") and "never backpropagated" in f.message
