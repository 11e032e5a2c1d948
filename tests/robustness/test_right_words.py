"""Messages name the user's constructs exactly (issue 30): no doubled names, no empty names,
no note about child processes that did no training."""

from __future__ import annotations

import pytest
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


EVALUATION_WITH_WORKERS = """
import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).eval()
    loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))), batch_size=16, num_workers=2)
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += int((model(x).argmax(1) == y).sum())
    print("accuracy", correct / 64)
"""

HOGWILD = """
import pytest
import torch
import torch.multiprocessing as mp
from torch import nn


def train(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(3):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    model = nn.Linear(4, 1)
    model.share_memory()
    workers = [mp.Process(target=train, args=(model,)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
"""


@pytest.mark.slow  # a `graddoctor run` subprocess whose DataLoader starts two workers
def test_dataloader_workers_without_training_get_no_child_process_note(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=EVALUATION_WITH_WORKERS)
    assert ran.returncode == 0, ran.stderr
    assert "accuracy" in ran.stdout
    assert "child processes" not in " ".join(ran.stdout.split())


@pytest.mark.slow  # a `graddoctor run` subprocess that trains in two child processes
def test_hogwild_training_in_children_is_said_to_be_unobserved(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=HOGWILD)
    assert "training in child processes" in " ".join(ran.stdout.split()), ran.stdout + ran.stderr
