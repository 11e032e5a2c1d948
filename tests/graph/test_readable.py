"""has_values: the one check before graddoctor reads a tensor's elements.

It runs on every backward's loss, so its fast paths (a contiguous view's extent from its element
count, a class's answer remembered) must refuse exactly what the full check refuses.
"""

from __future__ import annotations

import torch

from graddoctor.graph.readable import has_values


def _views_then_shrink(total: int, keep: int, *views) -> list[torch.Tensor]:
    """Views of a tensor of `total` floats, taken before its storage is cut to its first `keep`
    (what FSDP does to a parameter between uses)."""
    base = torch.randn(total)
    made = [view(base) for view in views]
    base.untyped_storage().resize_(keep * base.element_size())
    return made


def test_a_contiguous_view_past_a_shrunk_storage_is_not_read():
    past, inside = _views_then_shrink(100, 60, lambda b: b[50:90], lambda b: b[10:20])
    assert past.is_contiguous() and inside.is_contiguous()
    assert not has_values(past)  # reaches element 89, the storage ends at 59
    assert has_values(inside)  # near miss: wholly inside what is left


def test_a_strided_view_past_a_shrunk_storage_is_not_read():
    inside, past = _views_then_shrink(100, 60, lambda b: b[:50].view(5, 10).t(), lambda b: b[:80].view(8, 10).t())
    assert not inside.is_contiguous() and not past.is_contiguous()
    assert has_values(inside)
    assert not has_values(past)


def test_freed_storage_and_valueless_tensors_are_not_read():
    (freed,) = _views_then_shrink(10, 0, lambda b: b[2:8])
    assert not has_values(freed)
    assert not has_values(torch.empty(0, 3))
    assert not has_values(torch.empty(3, device="meta"))
    assert not has_values(torch.randn(3, 3).to_sparse())
    assert has_values(torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last))


class _Counting(torch.Tensor):
    """A subclass that runs code of its own on every op: reading it would run that code."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})


class _Tagged(torch.Tensor):
    """A subclass that overrides no torch hook: its values are plain."""


def test_subclasses_answer_the_same_every_time():
    counting, tagged = torch.randn(4).as_subclass(_Counting), torch.randn(4).as_subclass(_Tagged)
    for _ in range(2):  # the second answer comes from what was remembered for the class
        assert not has_values(counting)
        assert has_values(tagged)
