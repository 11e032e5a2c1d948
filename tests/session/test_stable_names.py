"""Parameter and layer names carry the user's variable from the first step to the end of a run,
also for a lone `nn.Sequential` and when a second model appears mid-run."""

from __future__ import annotations

import torch
from torch import nn

SEQUENTIAL_SKIPS_ITS_FIRST_LAYER = """\
import copy

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(8):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model[2:](x), y)  # model[0] is skipped: GD104
    loss.backward()
    optimizer.step()
    if step == 4:  # a second model appears mid-run: an average of the weights
        ema = copy.deepcopy(model)
    if step >= 4:
        with torch.no_grad():
            for kept, p in zip(ema.parameters(), model.parameters()):
                kept.lerp_(p, 0.1)
"""

def test_a_lone_sequential_is_named_by_its_variable_and_keeps_it_when_a_second_model_appears(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=SEQUENTIAL_SKIPS_ITS_FIRST_LAYER)
    gd104 = ran.finding("GD104")
    assert gd104["subjects"] == ["model.0.weight", "model.0.bias"]  # found at the first step, one model then
    assert "`model.0`" in gd104["message"], gd104["message"]
    rows = [r["name"] for r in ran.report["layers"]]
    assert rows == ["model.0", "model.2", "model.4"], rows


def test_layer_rows_show_the_class_beside_the_name_and_gd303_names_layers_by_the_variable():
    from graddoctor import watch

    torch.manual_seed(0)
    net = nn.Sequential(*[nn.Linear(16, 16) for _ in range(6)])
    with torch.no_grad():
        for layer in net:
            layer.weight.mul_(2.5)  # a badly scaled stack: with this lr the gradients blow up (GD303)
    opt = torch.optim.SGD(net.parameters(), lr=0.02)
    x, y = torch.randn(32, 16), torch.randn(32, 16)
    with watch(net, opt) as w:
        for _ in range(12):
            opt.zero_grad()
            nn.functional.mse_loss(net(x), y).backward()
            opt.step()
    report = w.report()
    gd303 = next(f for f in report.findings if f.code == "GD303")
    assert gd303.subjects and all(s.startswith("net.") for s in gd303.subjects), gd303.subjects
    assert [r.label for r in report.layers] == [f"net.{i} (Linear)" for i in range(6)]
    assert [r.to_json()["name"] for r in report.layers] == [f"net.{i}" for i in range(6)]  # the schema's name
    assert "net.0 (Linear)" in report.to_html()


def test_names_given_once_stay_when_the_namespace_changes():
    from graddoctor.session.models import label_models

    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    pinned: dict[int, str] = {}
    assert list(label_models([a], None, None, pinned)) == ["Linear"]
    # later the script's globals name it, and a second model of the same class appears
    assert label_models([a, b], {"enc": a, "dec": b}, None, pinned) == {"Linear": a, "dec": b}
