"""Messages name the user's constructs exactly (issue 30): no doubled names, no empty names,
no note about child processes that did no training."""

from __future__ import annotations

import torch
from torch import nn

import graddoctor


class Transfer(nn.Module):
    """A transfer-learning wrapper: a pretrained feature extractor and a new head `_fc`."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self._fc = nn.Linear(16, 2)

    def forward(self, x):
        return self._fc(self.features(x))


def test_gd210_names_the_layer_to_unfreeze_once():
    model_transfer = Transfer()
    model_transfer.requires_grad_(False)  # meant: freeze the features only
    optimizer = torch.optim.SGD(model_transfer.parameters(), lr=0.1)
    loss = model_transfer(torch.randn(4, 8, requires_grad=True)).sum()  # a graph through the inputs
    found = next(f for f in graddoctor.diagnose(loss, {"model_transfer": model_transfer}, optimizer).findings
                 if f.code == "GD210")
    assert "`model_transfer._fc.requires_grad_(True)`" in found.hint, found.hint
    assert "model_transfer.model_transfer" not in found.hint


def test_gd210_names_a_layer_of_a_list_container_by_index():
    net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
    net.requires_grad_(False)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    found = next(f for f in graddoctor.diagnose(net(torch.randn(2, 4, requires_grad=True)).sum(), {"net": net}, optimizer).findings
                 if f.code == "GD210")
    assert "`net[1].requires_grad_(True)`" in found.hint, found.hint
