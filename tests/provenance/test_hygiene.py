"""Deep mode never changes results, keeps nothing alive, and always removes itself."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch
from torch import nn
from torch.overrides import _get_current_function_mode_stack

from graddoctor.session.session import Session
from graddoctor.assembly import standard_observers


def _train(steps: int, seed: int = 0) -> list[torch.Tensor]:
    torch.manual_seed(seed)
    teacher = nn.Linear(6, 3)
    model = nn.Sequential(nn.Linear(6, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 3))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(steps):
        x = torch.randn(8, 6)
        with torch.no_grad():
            target = teacher(x).softmax(-1)
        out = model(x)
        loss = -(target * out.log_softmax(-1)).sum(-1).mean()
        loss = loss + 0.0 * out.detach().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss.item()
        arr = out.detach().numpy()
        torch.from_numpy(arr).sum()
    return [p.detach().clone() for p in model.parameters()]


def test_parameters_are_bit_identical_with_deep_mode():
    torch.set_num_threads(1)
    plain = _train(5)
    with Session(standard_observers(mode="watch", deep=True)):
        deep = _train(5)
    assert all(torch.equal(a, b) for a, b in zip(plain, deep))


def _assert_clean(from_numpy, enter, exit_):
    assert _get_current_function_mode_stack() == []
    assert torch.from_numpy is from_numpy
    assert torch.autograd.grad_mode.inference_mode.__enter__ is enter
    assert torch.autograd.grad_mode.inference_mode.__exit__ is exit_
    assert torch.is_grad_enabled()


def test_everything_removed_after_success_and_after_the_users_exception():
    originals = (torch.from_numpy, torch.autograd.grad_mode.inference_mode.__enter__,
                 torch.autograd.grad_mode.inference_mode.__exit__)
    with Session(standard_observers(mode="watch", deep=True)):
        assert len(_get_current_function_mode_stack()) == 1
        _train(1)
    _assert_clean(*originals)

    with pytest.raises(ZeroDivisionError):
        with Session(standard_observers(mode="watch", deep=True)):
            with torch.no_grad():
                with torch.inference_mode():
                    torch.ones(2) / 1
                    1 / 0
    _assert_clean(*originals)


def test_run_records_only_the_first_steps():
    observers = standard_observers(mode="run", deep=True)
    provenance = next(o for o in observers if o.name == "provenance")
    with Session(observers):
        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(5):
            model(torch.randn(2, 4)).sum().backward()
            opt.step()
            opt.zero_grad()
            if step < 2:
                assert _get_current_function_mode_stack() == [provenance.recorder]
        assert _get_current_function_mode_stack() == []
    assert _get_current_function_mode_stack() == []


def test_records_keep_no_tensor_alive():
    with Session(standard_observers(mode="watch", deep=True)) as session:
        model = nn.Linear(4, 4)
        out = model(torch.randn(3, 4))
        cut = out.detach()
        hidden = torch.tanh(out)
        refs = [weakref.ref(t) for t in (out, cut, hidden)]
        session_cuts = _provenance(session).cuts(cut)
        assert session_cuts and session_cuts[0].kind == "detach"
        del out, cut, hidden
        gc.collect()
        assert all(r() is None for r in refs)


def test_enable_grad_inside_no_grad_is_not_blamed():
    with Session(standard_observers(mode="watch", deep=True)) as session:
        model = nn.Linear(4, 1)
        with torch.no_grad():
            with torch.enable_grad():
                loss = model(torch.randn(2, 4)).sum()
            after = model(torch.randn(2, 4))
        assert _provenance(session).cuts(loss) == []
        assert [c.kind for c in _provenance(session).cuts(after)] == ["grad-off"]
        loss.backward()


def test_torch_compile_under_deep_mode_is_transparent_and_identical(caplog):
    def train() -> list[torch.Tensor]:
        torch.manual_seed(0)
        torch._dynamo.reset()
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        compiled = torch.compile(model, backend="eager")
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            loss = compiled(torch.randn(8, 4)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        return [p.detach().clone() for p in model.parameters()]

    plain = train()
    with Session(standard_observers(mode="watch", deep=True)):
        deep = train()
    assert all(torch.equal(a, b) for a, b in zip(plain, deep))
    assert "recompile_limit" not in caplog.text


def _provenance(session):
    return next(o for o in session.observers if o.name == "provenance")
