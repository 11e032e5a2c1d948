"""GD104/GD102/GD110 point at the line that cut the graph, one to three calls from the loss.

Each scenario also checks the oracle: the parameters named as cut off really
have `.grad is None` after backward (the script records it).
"""

from __future__ import annotations

from tests.provenance.conftest import line_of

MODEL = """
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 16)

    def forward(self, x):
        return torch.relu(self.proj(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        with torch.no_grad():
            feats = self.encoder(x)
        return self.head(feats)
"""

TRAIN = """
import torch
from model import Net

torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
GRADS = []
for _ in range(3):
    loss = model(torch.randn(4, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    GRADS.append({n: p.grad is None for n, p in model.named_parameters()})
    opt.step()
"""


def test_no_grad_inside_another_modules_forward_points_at_that_line(run_script):
    ran = run_script({"model.py": MODEL, "train.py": TRAIN})
    found = ran.only("GD110")  # grad mode off: GD110 at the line that turned it off, not GD104
    assert (found.file, found.line) == ("model.py", line_of(MODEL, "with torch.no_grad()"))
    assert found.subjects == ["model.encoder.proj.weight", "model.encoder.proj.bias"]
    notes = {(r.file, r.line): r.note for r in found.related}
    assert notes[("model.py", line_of(MODEL, "feats = self.encoder(x)"))] == "computed without gradient recording here"
    assert ("train.py", line_of(TRAIN, "loss = model(")) in notes  # the chain leads to the cut
    assert "GD104" not in ran.codes() and "GD102" not in ran.codes()


def test_oracle_cut_parameters_really_have_no_grad(tmp_path, run_script):
    train = TRAIN + "\nimport json; json.dump(GRADS[-1], open('grads.json', 'w'))\n"
    ran = run_script({"model.py": MODEL, "train.py": train})
    import json

    # the oracle knows the model's own parameter names; the report prefixes them with its variable, `model`
    grad_is_none = {f"model.{name}": none for name, none in json.loads((tmp_path / "grads.json").read_text()).items()}
    found = ran.only("GD110")
    assert found.subjects and all(grad_is_none[name] for name in found.subjects)
    assert not any(grad_is_none[name] for name in grad_is_none if name not in found.subjects)


def test_detach_inside_a_helper_two_calls_away(run_script):
    helpers = """
    import torch


    def normalise(h):
        return h.detach() / 2


    def features(model, x):
        return normalise(model[0](x))
    """
    train = """
    import torch
    from torch import nn
    from helpers import features

    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        loss = model[1](features(model, torch.randn(4, 8))).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    ran = run_script({"helpers.py": helpers, "train.py": train})
    found = ran.only("GD104")
    assert (found.file, found.line) == ("helpers.py", line_of(helpers, "h.detach()"))
    assert found.subjects == ["model.0.weight", "model.0.bias"]
    chain = [(r.file, r.line) for r in found.related]
    assert ("helpers.py", line_of(helpers, "return normalise(")) in chain
    assert ("train.py", line_of(train, "loss = model[1]")) in chain


def test_item_round_trip_in_a_loss_function_three_calls_away(run_script):
    losses = """
    import torch


    def _value(t):
        return t.mean().item()


    def _scaled(pred, target):
        return torch.tensor(_value((pred - target) ** 2), requires_grad=True)


    def criterion(pred, target):
        return _scaled(pred, target) * 1.0
    """
    train = """
    import torch
    from torch import nn
    from losses import criterion

    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        loss = criterion(model(torch.randn(8, 4)), torch.zeros(8, 1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    ran = run_script({"losses.py": losses, "train.py": train})
    # SPEC: a loss built from `.item()` results is GD101 (at the `.item()`), not GD104.
    assert "GD104" not in ran.codes()
    found = ran.only("GD101")
    assert (found.file, found.line) == ("losses.py", line_of(losses, ".item()"))
    assert set(found.subjects) == {"model.weight", "model.bias"}
    chain = [(r.file, r.line) for r in found.related]
    assert ("losses.py", line_of(losses, "return torch.tensor(_value(")) in chain
    assert ("losses.py", line_of(losses, "return _scaled(")) in chain


def test_cut_inside_collate_fn(run_script):
    train = """
    import torch
    from torch import nn
    from torch.utils.data import DataLoader

    embed = nn.Embedding(10, 4)
    head = nn.Linear(4, 1)


    def collate(batch):
        ids = torch.tensor(batch)
        return embed(ids).detach()


    loader = DataLoader(list(range(10)), batch_size=5, collate_fn=collate)
    opt = torch.optim.SGD(list(embed.parameters()) + list(head.parameters()), lr=0.1)
    for x in loader:
        loss = head(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD104")
    assert (found.file, found.line) == ("train.py", line_of(train, "embed(ids).detach()"))
    assert found.subjects == ["embed.weight"]  # two root modules: named by the variables that hold them


def test_whole_loss_cut_by_detach_is_gd102_at_the_cut(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)


    def criterion(out, y):
        return (out.detach() - y).pow(2).mean()


    loss = criterion(model(torch.randn(3, 4)), torch.zeros(3, 1))
    loss.backward()
    """
    ran = run_script({"train.py": train})
    assert isinstance(ran.exception, RuntimeError)
    found = ran.only("GD102")
    assert (found.file, found.line) == ("train.py", line_of(train, "out.detach()"))
    assert "GD104" not in ran.codes()


def test_argmax_is_a_non_differentiable_cut(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 3)
    pred = model(torch.randn(5, 4)).argmax(dim=1).float()
    loss = (pred - 1).pow(2).mean()
    loss.backward()
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD102")
    assert found.line == line_of(train, "argmax")
    assert "argmax" in found.message


def test_decorated_no_grad_helper_is_gd110_at_the_decorator(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 1)


    @torch.no_grad()
    def predict(x):
        return model(x)


    loss = predict(torch.randn(3, 4)).pow(2).mean()
    loss.backward()
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD110")
    assert found.line == line_of(train, "@torch.no_grad()")
    assert ("train.py", line_of(train, "loss = predict(")) in [(r.file, r.line) for r in found.related]
    assert "GD102" not in ran.codes()


def test_set_grad_enabled_false_is_gd110(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 1)
    with torch.set_grad_enabled(False):
        out = model(torch.randn(3, 4))
    loss = out.pow(2).mean()
    loss.backward()
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD110")
    assert found.line == line_of(train, "set_grad_enabled(False)")


def test_numpy_round_trip_is_blamed_on_the_detach(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    out = model(torch.randn(3, 4))
    arr = out.detach().numpy()
    loss = torch.from_numpy(arr).requires_grad_().pow(2).mean()
    loss.backward()
    opt.step()
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD104")
    assert found.line == line_of(train, "out.detach().numpy()")


import pytest  # noqa: E402


@pytest.mark.parametrize(
    "expr,word",
    [
        ("torch.tensor(out)", "torch.tensor"),
        ("out.data", "`.data`"),
        ("out.long().float()", "long"),
        ("(out > 0).float()", "gt"),
        ("torch.round(out).detach()", "`.detach()`"),
    ],
)
def test_each_kind_of_cut_is_named_at_its_line(run_script, expr, word):
    train = f"""
    import warnings
    import torch
    from torch import nn

    warnings.simplefilter("ignore")
    model = nn.Linear(4, 1)
    out = model(torch.randn(3, 4))
    cut = {expr}
    loss = (cut * 2.0).mean()
    loss.backward()
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD102")
    assert found.line == line_of(train, "cut = ")
    assert word in found.message
