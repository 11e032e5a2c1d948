"""`optimizer.step(closure)`, as Lightning and LBFGS use it: the step begins after the closure."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from graddoctor.session.observer import Observer
from graddoctor.session.session import Session


class Order(Observer):
    def __init__(self):
        self.events: list[str] = []

    def before_backward(self, event):
        self.events.append("backward")

    def before_step(self, event):
        self.events.append("step")

    def after_step(self, event):
        self.events.append("stepped")

    def on_call(self, event):
        self.events.append(event.kind)


def closure_for(net, opt, x, y, fail: bool = False):
    def closure():
        if fail:
            raise ValueError("closure failed")
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        return loss

    return closure


@pytest.mark.parametrize("make", [lambda p: torch.optim.SGD(p, lr=0.1), lambda p: torch.optim.LBFGS(p, max_iter=1)])
def test_closure_runs_before_the_step_begins(make):
    net = nn.Linear(3, 1)
    opt = make(net.parameters())
    order = Order()
    with Session([order]):
        opt.step(closure_for(net, opt, torch.randn(4, 3), torch.randn(4, 1)))
    assert order.events == ["zero_grad", "backward", "step", "stepped"]


def test_a_closure_that_raised_does_not_hide_later_steps():
    net = nn.Linear(3, 1)
    first, second = torch.optim.SGD(net.parameters(), lr=0.1), torch.optim.SGD(net.parameters(), lr=0.1)
    x, y = torch.randn(4, 3), torch.randn(4, 1)
    with Session([Order()]):
        with pytest.raises(ValueError, match="closure failed"):
            first.step(closure_for(net, first, x, y, fail=True))
    order = Order()
    with Session([order]) as session:
        second.step(closure_for(net, second, x, y))
    assert order.events[-2:] == ["step", "stepped"] and session.steps_taken == 1


def test_results_are_unchanged_by_the_closure_wrapper():
    def trained(watch: bool):
        torch.manual_seed(0)
        net = nn.Linear(3, 1)
        opt = torch.optim.LBFGS(net.parameters(), max_iter=3)
        x, y = torch.randn(8, 3), torch.randn(8, 1)
        session = Session([Order()]).attach() if watch else None
        try:
            for _ in range(2):
                opt.step(closure_for(net, opt, x, y))
        finally:
            if session:
                session.detach()
        return [p.detach().clone() for p in net.parameters()]

    assert all(torch.equal(a, b) for a, b in zip(trained(False), trained(True)))
