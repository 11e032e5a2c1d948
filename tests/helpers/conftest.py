"""Data for the helpers' tests."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture
def data() -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(8, 6, generator=g), torch.randn(8, 2, generator=g)) for _ in range(7)]
