"""GD501: probabilities given to a loss that applies its own softmax/sigmoid; log-probabilities as NLLLoss wants."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch

from .helpers import findings, loud


class Classifier(nn.Module):
    def __init__(self, d=10, classes=4, head=None):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, classes))
        self.head = head

    def forward(self, x):
        logits = self.body(x)
        return self.head(logits) if self.head is not None else logits


def _blobs(n=64, d=10, classes=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(classes, d, generator=g) * 3
    y = torch.randint(0, classes, (n,), generator=g)
    return centers[y] + torch.randn(n, d, generator=g), y


def _train(model, loss_fn, steps=12, lr=0.1, target=None):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    with watch(model, opt) as w:
        for step in range(steps):
            x, y = _blobs(seed=step)
            loss = loss_fn(model(x), y if target is None else target(y))
            opt.zero_grad()
            loss.backward()
            opt.step()
    return w


def test_softmax_output_into_cross_entropy_loss():
    w = _train(Classifier(head=nn.Softmax(dim=1)), nn.CrossEntropyLoss())
    [f] = findings(w, "GD501")
    assert f.file.endswith("test_probabilities.py") and "non-negative and sum to 1" in f.message
    assert "(64, 4)" in f.message and "softmax" in f.message
    assert "remove the `softmax`" in f.hint


def test_sigmoid_output_into_bce_with_logits():
    model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
    w = _train(model, nn.BCEWithLogitsLoss(), target=lambda y: (y % 2).float().unsqueeze(1))
    [f] = findings(w, "GD501")
    assert "[0, 1]" in f.message and "sigmoid" in f.message and "BCELoss" in f.hint


def test_softmax_into_nll_loss_and_raw_scores_into_nll_loss():
    w = _train(Classifier(head=nn.Softmax(dim=1)), nn.NLLLoss())
    [f] = findings(w, "GD501")
    assert "log-probabilities" in f.message and "probabilities (rows that sum to 1)" in f.message
    raw = _train(Classifier(), nn.NLLLoss(), steps=4)
    [g] = findings(raw, "GD501")
    assert "raw scores" in g.message and "log_softmax" in g.hint


def test_log_softmax_with_nll_loss_is_silent():
    w = _train(Classifier(head=nn.LogSoftmax(dim=1)), nn.NLLLoss())
    assert loud(w) == []


def test_sigmoid_with_bce_loss_is_silent():
    model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
    w = _train(model, nn.BCELoss(), target=lambda y: (y % 2).float().unsqueeze(1))
    assert loud(w) == []


def test_probability_targets_label_smoothing_and_distillation_are_silent():
    teacher = Classifier()
    w = _train(Classifier(), nn.CrossEntropyLoss(label_smoothing=0.1))
    assert loud(w) == []
    student = Classifier()
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    with watch(student, opt) as w:
        for step in range(12):
            x, y = _blobs(seed=step)
            with torch.no_grad():
                soft = F.softmax(teacher(x) / 2.0, dim=1)  # probability *targets*
            loss = F.cross_entropy(student(x) / 2.0, soft)
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert loud(w) == []


def test_classifier_whose_logits_happen_to_be_small_is_silent():
    model = Classifier()
    with torch.no_grad():
        model.body[2].weight.mul_(1e-3)
        model.body[2].bias.zero_()
    w = _train(model, nn.CrossEntropyLoss(), lr=1e-4)
    assert loud(w) == []
    binary = nn.Sequential(nn.Linear(10, 1))
    with torch.no_grad():
        binary[0].weight.mul_(1e-3)
        binary[0].bias.fill_(0.3)  # every logit small and positive: still logits, no sigmoid in the graph
    w = _train(binary, nn.BCEWithLogitsLoss(), steps=8, lr=1e-4, target=lambda y: (y % 2).float().unsqueeze(1))
    assert findings(w, "GD501") == []


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_deep_mode_names_the_line_that_applied_the_softmax(graddoctor_cli):
    (graddoctor_cli.path / "model.py").write_text(
        "import torch\nfrom torch import nn\n\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(8, 3)\n\n"
        "    def forward(self, x):\n"
        "        return torch.softmax(self.fc(x), dim=1)\n"
    )
    ran = graddoctor_cli("run", "train.py", script="""
        import torch
        from torch import nn
        from model import Net

        model = Net()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        for step in range(6):
            x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    """)
    f = ran.finding("GD501")
    assert (f["file"], f["line"]) == ("model.py", 11)
    assert [(r["file"], r["line"]) for r in f["related"]] == [("train.py", 10)]
    assert "model.py:11" in ran.stdout


class DeepReLUNet(nn.Module):
    """Ten Linear+ReLU layers and a linear output: at initialisation every output is a small
    positive number (tiny activations, the last bias), so the first batches' logits all lie in [0, 1]."""

    def __init__(self, width=32, depth=10, squash=None):
        super().__init__()
        layers = [nn.Linear(16, width), nn.ReLU()]
        for _ in range(depth - 2):
            layers += [nn.Linear(width, width), nn.ReLU()]
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)
        self.squash = squash

    def forward(self, x):
        z = self.net(x)
        return self.squash(z) if self.squash is not None else z


def _train_binary(model, steps=160):
    torch.manual_seed(0)
    X = torch.randn(512, 16)
    y = (X.sum(dim=1, keepdim=True) > 0).float()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    with watch(model, opt) as w:
        for step in range(steps):
            i = (step * 64) % 512
            loss = F.binary_cross_entropy_with_logits(model(X[i:i + 64]), y[i:i + 64])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return w


def test_small_positive_initial_logits_are_not_probabilities():
    torch.manual_seed(3)
    model = DeepReLUNet()
    with torch.no_grad():
        model.net[-1].bias.fill_(0.1)  # every first output in [0, 1], as an unlucky init gives
    w = _train_binary(model)
    assert findings(w, "GD501") == [] and loud(w) == []


def test_hand_written_sigmoid_into_bce_with_logits_persists():
    # 1 / (1 + exp(-z)): no Sigmoid node in the graph, so only the values show it, step after step
    torch.manual_seed(3)
    w = _train_binary(DeepReLUNet(depth=3, squash=lambda z: 1 / (1 + torch.exp(-z))))
    [f] = findings(w, "GD501")
    assert "[0, 1]" in f.message and f.step >= 100


def _bce_check(judge, line: int, step: int, low: float, high: float) -> None:
    from graddoctor.locate import Location
    from graddoctor.lossdata.calls import LossCall

    call = LossCall(name="binary_cross_entropy_with_logits", where=Location("train.py", line, None, "f"), step=step,
                    index=0, input_shape=(64, 1), target_shape=(64, 1))
    judge.take(call, [low, high])


def test_unit_range_logits_are_judged_on_every_check_of_the_run():
    from graddoctor.rules.data.gd501_probabilities_into_logits_loss.judge import Probabilities

    # a GAN: the real samples' logits (line 36) stay in [0, 1] on every check, the fakes' (line 37) go below 0
    gan = Probabilities()
    for step in range(0, 300, 10):
        _bce_check(gan, 36, step, 0.1, 0.9)
        _bce_check(gan, 37, step, -0.4 if step > 200 else 0.05, 0.6)
    assert gan.findings() == []
    # one line in [0, 1] past step 100 for a while, then real logits: nothing either
    later = Probabilities()
    for step in range(0, 300, 10):
        _bce_check(later, 36, step, 0.1 if step < 250 else -0.2, 0.9)
    assert later.findings() == []
    # in [0, 1] at every check of the run: a warning with what was measured
    always = Probabilities()
    for step in range(0, 300, 10):
        _bce_check(always, 36, step, 0.1, 0.9)
    [f] = always.findings()
    assert f.evidence["checks_in_unit_range"] >= 10 and f.evidence["max"] == 0.9
