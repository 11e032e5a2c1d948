"""Every patch in the instrumentation registry comes off, whatever order two sessions detach in.

The attributes checked are those the registry declares (not a hand list), so a
patch added later is checked without touching this test.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
import torch
import torch._dynamo  # noqa: F401  (imported: dynamo's hooks and SKIP_DIRS are patched at attach)
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

import graddoctor
from graddoctor.lossdata import patches as loss_patches
from graddoctor.loop import train_modes
from graddoctor.observers import provenance
from graddoctor.session import compiled, dispatch, instrumentation, torch_private
from graddoctor.session.manual_steps import OWNER as MANUAL

_MISSING = object()


def _state_of(patch: instrumentation.Patch) -> object:
    """What the target holds itself (not inherited) under the patched name."""
    return vars(patch.target).get(patch.attr, _MISSING)


def _snapshot() -> dict:
    return {(id(p.target), p.attr): _state_of(p) for p in instrumentation.declared()}


def _manual_step(model: nn.Module) -> None:
    """One update without an optimizer: the manual-steps patches go in (Tensor.add_ and co.)."""
    for _ in range(2):
        model(torch.randn(4, 3)).sum().backward()
        with torch.no_grad():
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-0.1)
                p.grad = None


def _train(model: nn.Module, raise_after: bool) -> None:
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(torch.randn(8, 3), torch.randint(0, 2, (8,))), batch_size=4)
    model.train()
    for x, y in loader:
        x = x + torch.from_numpy(np.zeros((1, 3), dtype=np.float32))
        loss = F.cross_entropy(torch.cat([model(x), -model(x)], 1), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.inference_mode():
        model(torch.randn(2, 3))
    if raise_after:
        raise KeyError("the user's own error")


@pytest.fixture(scope="module")
def originals():
    """The state before graddoctor ever attached, and after a first attach has declared
    what is declared only once dynamo's context class is known."""
    skip_dirs = torch_private.skip_dirs()
    with graddoctor.watch(deep=True):
        pass
    assert torch_private.skip_dirs() == skip_dirs
    return _snapshot(), skip_dirs


@pytest.mark.parametrize("raise_after", [False, True], ids=["completed", "user-raised"])
@pytest.mark.parametrize("order", ["A,B,detach A,detach B", "A,B,detach B,detach A"])
def test_two_sessions_put_every_patched_attribute_back_in_either_order(originals, order, raise_after):
    before, skip_dirs = originals
    model = nn.Linear(3, 1)
    a, b = graddoctor.watch(deep=True), graddoctor.watch(deep=True)
    a.attach()
    b.attach()
    first, second = (a, b) if order.endswith("detach A,detach B") else (b, a)
    seen_active: set[str] = set()
    with pytest.raises(KeyError) if raise_after else contextlib.nullcontext():
        try:
            _manual_step(model)
            seen_active |= {p.owner for p in instrumentation.declared() if instrumentation.active(p.owner)}
            _train(model, raise_after)
        finally:
            first.detach()
            # The session still attached keeps every patch, and keeps hearing of the loop.
            assert dispatch.active_sessions() == [second.session]
            assert provenance._recorders and loss_patches._listeners and train_modes._listeners
            backward_count = second.session.backward_count
            model(torch.randn(2, 3)).sum().backward()
            assert second.session.backward_count == backward_count + 1
            assert torch_private.skip_dirs() != skip_dirs  # graddoctor's folders are still skipped
            second.detach()

    assert {dispatch.OWNER, loss_patches.OWNER, train_modes.OWNER, provenance.OWNER, MANUAL,
            compiled.HOOKED} <= seen_active
    assert instrumentation.installed() == []
    after = _snapshot()
    changed = [f"{p.target!r}.{p.attr}" for p in instrumentation.declared()
               if after[(id(p.target), p.attr)] is not before[(id(p.target), p.attr)]]
    assert changed == []
    assert torch_private.skip_dirs() == skip_dirs
    assert not dispatch.active_sessions() and not provenance._recorders
    assert not loss_patches._listeners and not train_modes._listeners


def test_one_attribute_wanted_by_two_owners_is_wrapped_once():
    """DataLoader.__iter__: the loop audit counts passes, the loss-and-data observers name the loader."""
    original = vars(DataLoader)["__iter__"]
    owners = {p.owner for p in instrumentation.declared() if p.target is DataLoader and p.attr == "__iter__"}
    assert owners == {dispatch.OWNER, loss_patches.OWNER}
    loader = DataLoader(TensorDataset(torch.randn(4, 1)), batch_size=2)
    with graddoctor.watch():
        wrapper = vars(DataLoader)["__iter__"]
        assert wrapper.__graddoctor_original__.__graddoctor_original__ is original  # two layers, one replacement
        assert not hasattr(original, "__graddoctor_original__")
        list(loader)
        assert loss_patches.last_loader() is loader
    assert vars(DataLoader)["__iter__"] is original


@pytest.fixture
def test_owners():
    """Owners the test declares, forgotten after it (the registry is global)."""
    owners: list[str] = []
    yield owners
    for owner in owners:
        instrumentation.forget(owner)


def test_a_patch_that_fails_to_install_leaves_nothing_behind(test_owners):
    class Target:
        def first(self):
            return 1

        def second(self):
            return 2

    def broken(original):
        raise RuntimeError("cannot make this wrapper")

    owner = "test: fails halfway"
    test_owners.append(owner)
    instrumentation.declare(owner, Target, "first", lambda original: lambda self: original(self) + 10)
    instrumentation.declare(owner, Target, "second", broken)
    first = vars(Target)["first"]
    with pytest.raises(RuntimeError):
        instrumentation.attach(owner, "user")
    assert vars(Target)["first"] is first and not instrumentation.active(owner)
    assert Target().first() == 1


def test_overlapping_owners_compose_and_unwind_in_any_order(test_owners):
    class Target:
        def value(self):
            return 1

    test_owners += ["test: x10", "test: +1"]
    instrumentation.declare("test: x10", Target, "value", lambda original: lambda self: original(self) * 10)
    instrumentation.declare("test: +1", Target, "value", lambda original: lambda self: original(self) + 1)
    original = vars(Target)["value"]
    instrumentation.attach("test: x10", "u1")
    instrumentation.attach("test: +1", "u2")
    instrumentation.attach("test: +1", "u3")
    assert Target().value() == 11  # composed in the order the owners attached
    instrumentation.detach("test: x10", "u1")  # the first to attach leaves first
    assert Target().value() == 2
    instrumentation.detach("test: +1", "u2")
    assert Target().value() == 2  # u3 still uses it
    instrumentation.detach("test: +1", "u3")
    instrumentation.detach("test: +1", "u3")  # twice is once
    assert vars(Target)["value"] is original and Target().value() == 1
