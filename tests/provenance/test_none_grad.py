"""`'NoneType' object has no attribute 'zero_'` at runtime: which of the three cases it is."""

from __future__ import annotations

from tests.provenance.conftest import line_of


def test_before_the_first_backward(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 1)
    for p in model.parameters():
        p.grad.zero_()
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD104")
    assert found.line == line_of(train, "p.grad.zero_()")
    assert "No backward() has run yet" in found.message


def test_after_zero_grad_set_the_gradients_to_none(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.randn(2, 4)).sum().backward()
    opt.step()
    opt.zero_grad()
    norm = sum(p.grad.norm() for p in model.parameters())
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD104")
    assert found.line == line_of(train, "p.grad.norm()")
    assert f"zero_grad() at train.py:{line_of(train, 'opt.zero_grad()')}" in found.message


def test_parameter_the_loss_does_not_reach(run_script):
    train = """
    import torch
    from torch import nn

    used, unused = nn.Linear(4, 1), nn.Linear(4, 1)
    opt = torch.optim.SGD(list(used.parameters()) + list(unused.parameters()), lr=0.1)
    used(torch.randn(2, 4)).sum().backward()
    for p in list(used.parameters()) + list(unused.parameters()):
        p.grad.mul_(0.5)
    """
    ran = run_script({"train.py": train})
    found = next(f for f in ran.findings if f.code == "GD104" and f.line == line_of(train, "p.grad.mul_"))
    assert "does not reach" in found.message


def test_float_loss_points_at_the_item_call(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 1)


    def compute(x):
        return model(x).pow(2).mean().item()


    loss = compute(torch.randn(3, 4))
    loss.backward()
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD101")
    assert found.line == line_of(train, ".item()")
    assert line_of(train, "loss.backward()") in [r.line for r in found.related]
