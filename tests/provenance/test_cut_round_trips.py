"""Issue 11 item 6: the cut is located for round trips, requires_grad_ and frozen models.

Each buggy program is the kind users write (a model class, a data loop); the
finding must name the line that cut the graph (and the line that hid it), and
each has a near miss that trains correctly and must stay silent.
"""

from __future__ import annotations

import json

from tests.provenance.conftest import line_of

HEADER = """
import numpy as np
import torch
from torch import nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.body(x)


torch.manual_seed(0)
rng = np.random.default_rng(0)
X = rng.standard_normal((256, 8)).astype(np.float32)
Y = (X[:, :1] * 2.0 + 0.1).astype(np.float32)
model = Regressor()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
"""


def _loop(post_process: str, helper: str = "") -> str:
    return HEADER + helper + f"""
GRAD_NONE = []
for epoch in range(2):
    for start in range(0, 256, 64):
        xb = torch.from_numpy(X[start:start + 64])
        yb = torch.from_numpy(Y[start:start + 64])
        pred = model(xb)
{post_process}
        loss = nn.functional.mse_loss(pred, yb)
        opt.zero_grad()
        loss.backward()
        GRAD_NONE.append(all(p.grad is None for p in model.parameters()))
        opt.step()
"""


CLIP_HELPER = """

def clip_outliers(pred):
    arr = pred.detach().cpu().numpy()
    arr = np.clip(arr, -3.0, 3.0)
    return torch.from_numpy(arr)
"""


def test_numpy_round_trip_through_np_clip_names_the_detach_and_the_rebuild(run_script):
    train = _loop("        pred = clip_outliers(pred)", CLIP_HELPER)
    ran = run_script({"train.py": train})
    found = ran.only("GD102")
    assert (found.file, found.line) == ("train.py", line_of(train, "arr = pred.detach().cpu().numpy()"))
    notes = {r.line: r.note for r in found.related}
    assert "without history" in notes[line_of(train, "return torch.from_numpy(arr)")]
    assert line_of(train, "loss.backward()") in notes
    assert "torch.from_numpy" in found.message


def test_numpy_round_trip_with_torch_tensor_of_the_array(run_script):
    train = _loop(
        "        scores = pred.detach().numpy()\n"
        "        pred = torch.tensor(scores * 0.5 + 0.5)"
    )
    ran = run_script({"train.py": train})
    found = ran.only("GD102")
    assert (found.file, found.line) == ("train.py", line_of(train, "scores = pred.detach().numpy()"))
    assert line_of(train, "pred = torch.tensor(scores") in {r.line for r in found.related}


def test_tolist_round_trip_is_named_at_the_tolist_line(run_script):
    helper = """

def calibrate(pred):
    values = pred.squeeze(1).tolist()
    return torch.tensor([[min(max(v, -3.0), 3.0)] for v in values])
"""
    train = _loop("        pred = calibrate(pred)", helper)
    ran = run_script({"train.py": train})
    # SPEC: a loss built from `.tolist()` results is GD101, at the `.tolist()`.
    assert "GD102" not in ran.codes()
    found = ran.only("GD101")
    assert (found.file, found.line) == ("train.py", line_of(train, "values = pred.squeeze(1).tolist()"))
    assert "tolist" in found.message


def test_torch_tensor_rewrap_of_the_output_in_a_loss_module(run_script):
    losses = """
import torch
from torch import nn


class SmoothL1(nn.Module):
    def forward(self, pred, target):
        pred = torch.tensor(pred, dtype=torch.float32)
        return nn.functional.smooth_l1_loss(pred, target)
"""
    train = _loop("").replace("loss = nn.functional.mse_loss(pred, yb)", "loss = SmoothL1()(pred, yb)")
    train = train.replace("import numpy as np", "import numpy as np\nfrom losses import SmoothL1")
    ran = run_script({"losses.py": losses, "train.py": train})
    found = ran.only("GD102")
    assert (found.file, found.line) == ("losses.py", line_of(losses, "pred = torch.tensor(pred"))
    assert "torch.tensor" in found.message


def test_requires_grad_true_on_the_rebuilt_tensor_names_both_lines(tmp_path, run_script):
    helper = CLIP_HELPER.replace("return torch.from_numpy(arr)", "return torch.from_numpy(arr).requires_grad_(True)")
    train = _loop("        pred = clip_outliers(pred)", helper)
    train += "\nimport json; json.dump(GRAD_NONE, open('grads.json', 'w'))\n"
    ran = run_script({"train.py": train})
    assert ran.exception is None  # the "fix" that hides the cut: backward() runs...
    assert all(json.loads((tmp_path / "grads.json").read_text()))  # ...and no parameter gets a gradient
    found = ran.only("GD104")
    assert (found.file, found.line) == ("train.py", line_of(train, "arr = pred.detach().cpu().numpy()"))
    notes = {r.line: r.note for r in found.related}
    assert "requires_grad_(True)" in notes[line_of(train, ".requires_grad_(True)")]
    assert "requires_grad_(True)" in found.message and "requires_grad_(True)" in found.hint


def test_torch_tensor_of_a_list_with_requires_grad_true_names_both_lines(run_script):
    helper = """

def calibrate(pred):
    values = pred.squeeze(1).tolist()
    return torch.tensor([[v] for v in values], requires_grad=True)
"""
    ran = run_script({"train.py": (train := _loop("        pred = calibrate(pred)", helper))})
    assert "GD104" not in ran.codes()  # the whole loss is rebuilt from numbers: GD101's
    found = ran.only("GD101")
    assert (found.file, found.line) == ("train.py", line_of(train, "values = pred.squeeze(1).tolist()"))
    notes = {r.line: r.note for r in found.related}
    assert "hides the cut" in notes[line_of(train, "requires_grad=True)")]


def test_whole_model_frozen_by_requires_grad_false_names_that_line_and_the_model(run_script):
    train = HEADER + "model.requires_grad_(False)  # left from a feature-extraction experiment\n" + _loop("")[len(HEADER):]
    ran = run_script({"train.py": train})
    found = ran.only("GD102")
    assert (found.file, found.line) == ("train.py", line_of(train, "model.requires_grad_(False)"))
    assert "`model`" in found.message and "Regressor" in found.message
    assert "`model.requires_grad_(True)`" in found.hint
    assert line_of(train, "loss.backward()") in {r.line for r in found.related}


def test_parameters_frozen_one_by_one_in_a_loop(run_script):
    freeze = "for p in model.parameters():\n    p.requires_grad = False\n"
    train = HEADER + freeze + _loop("")[len(HEADER):]
    ran = run_script({"train.py": train})
    found = ran.only("GD102")
    assert (found.file, found.line) == ("train.py", line_of(train, "p.requires_grad = False"))
    assert "`model`" in found.message and "`model.requires_grad_(True)`" in found.hint


# --- near misses: correct programs that use the same operations ---------------------------------


def test_numpy_metrics_and_numpy_data_of_the_same_shape_stay_silent(run_script):
    metrics = (
        "        preds_np = pred.detach().cpu().numpy()\n"
        "        mae = float(np.abs(np.clip(preds_np, -3, 3) - Y[start:start + 64]).mean())\n"
        "        history = torch.tensor(pred.detach().squeeze(1).tolist())"
    )
    ran = run_script({"train.py": _loop(metrics)})
    assert ran.serious() == [], [(f.code, f.line, f.message) for f in ran.serious()]


def test_frozen_backbone_with_a_trained_head_stays_silent(run_script):
    train = """
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        return self.head(self.backbone(x))


torch.manual_seed(0)
model = Classifier()
model.backbone.requires_grad_(False)
opt = torch.optim.SGD(model.head.parameters(), lr=0.1)
x, y = torch.randn(128, 16), torch.randint(0, 4, (128,))
for epoch in range(3):
    if epoch == 2:  # progressive unfreezing
        model.backbone.requires_grad_(True)
        opt.add_param_group({"params": model.backbone.parameters(), "lr": 0.01})
    for i in range(0, 128, 32):
        loss = nn.functional.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
"""
    ran = run_script({"train.py": train})
    assert ran.serious() == [], [(f.code, f.line, f.message) for f in ran.serious()]
