"""GD207 without luck: an evaluation that keeps its loss graphs is caught every time, under `graddoctor run`."""

from __future__ import annotations

import pytest

TRAIN = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x):
        return self.net(x)


train_loader = DataLoader(TensorDataset(torch.randn(512, 20), torch.randint(0, 4, (512,))), batch_size=32, shuffle=True)
val_loader = DataLoader(TensorDataset(torch.randn(384, 20), torch.randint(0, 4, (384,))), batch_size=32)
model = Classifier()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def evaluate():
    model.eval()
    total, correct = 0.0, 0
EVAL
    model.train()
    return float(total) / len(val_loader), correct / len(val_loader.dataset)


for epoch in range(EPOCHS):
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    val_loss, acc = evaluate()
    print(f"epoch {epoch}: val loss {val_loss:.3f} acc {acc:.2f}")
"""

KEEPS = {
    # the case: no no_grad, `criterion(...)` added to a running total
    "total_plus_criterion": """
    for x, y in val_loader:
        out = model(x)
        total += criterion(out, y)  # kept
        correct += (out.argmax(1) == y).sum().item()
""",
    "losses_in_a_list": """
    losses = []
    for x, y in val_loader:
        out = model(x)
        losses.append(criterion(out, y))  # kept
        correct += (out.argmax(1) == y).sum().item()
    total = torch.stack(losses).sum()
""",
}

SILENT = {
    "item": """
    for x, y in val_loader:
        out = model(x)
        total += criterion(out, y).item()
        correct += (out.argmax(1) == y).sum().item()
""",
    "no_grad": """
    with torch.no_grad():
        for x, y in val_loader:
            out = model(x)
            total += criterion(out, y)
            correct += (out.argmax(1) == y).sum().item()
""",
    "inference_mode": """
    with torch.inference_mode():
        for x, y in val_loader:
            out = model(x)
            total += criterion(out, y)
            correct += (out.argmax(1) == y).sum().item()
""",
    "detach": """
    for x, y in val_loader:
        out = model(x)
        total += criterion(out, y).detach()
        correct += (out.argmax(1) == y).float().sum().item()
""",
    "accuracy_mean_item": """
    for x, y in val_loader:
        out = model(x)
        loss = criterion(out, y)
        total += loss.item()
        correct += (out.argmax(1) == y).float().mean().item() * len(y)
""",
}


def program(body: str, epochs: int = 1) -> str:
    return TRAIN.replace("EVAL", body.strip("\n")).replace("EPOCHS", str(epochs))


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
@pytest.mark.parametrize("name", sorted(KEEPS))
@pytest.mark.parametrize("epochs", [1, 3])
def test_evaluation_that_keeps_loss_graphs_is_found_every_time(graddoctor_cli, name, epochs):
    script = program(KEEPS[name], epochs)
    ran = graddoctor_cli("run", "train.py", script=script)
    f = ran.finding("GD207")
    assert f["line"] == next(i + 1 for i, t in enumerate(script.splitlines()) if t.rstrip().endswith("# kept"))


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
@pytest.mark.parametrize("name", sorted(SILENT))
def test_evaluation_that_keeps_numbers_is_silent(graddoctor_cli, name):
    ran = graddoctor_cli("run", "train.py", script=program(SILENT[name], epochs=2))
    assert ran.report["status"] == "completed", ran.stderr[-2000:]
    assert [f["code"] for f in ran.report["findings"] if f["severity"] != "info"] == [], ran.stdout


def test_deep_supervision_and_a_previous_loss_are_not_a_growing_pile():
    import torch
    from torch import nn

    from graddoctor import watch

    torch.manual_seed(0)
    heads = nn.ModuleList(nn.Linear(8, 3) for _ in range(4))
    opt = torch.optim.SGD(heads.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    previous = None
    with watch(heads, opt) as w:
        for _ in range(30):
            opt.zero_grad()
            loss = sum(criterion(h(x), y) for h in heads)  # four results of one line per batch
            loss.backward()
            opt.step()
            previous, loss = loss, None  # the previous batch's loss kept for comparison
    assert previous is not None
    assert "GD207" not in w.report().codes, w.report()
