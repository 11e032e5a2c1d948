"""GD211 warns only with evidence of harm: layers that change the output, and outputs read as a metric."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import Severity, watch


def _data(n=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    return x, (x[:, 0] > 0).long()


def _model(p: float):
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(p), nn.Linear(16, 2))


def _fit(model, opt, x, y):
    for i in range(0, 64, 16):
        opt.zero_grad()
        F.cross_entropy(model(x[i:i + 16]), y[i:i + 16]).backward()
        opt.step()


def test_accuracy_of_a_model_with_dropout_in_training_mode_warns_with_the_metric_line():
    x, y = _data()
    x_test, y_test = _data(32, seed=1)
    model = _model(0.3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def evaluate():
        with torch.no_grad():
            pred = model(x_test).argmax(1)
        return (pred == y_test).float().mean().item()

    with watch() as w:
        for _ in range(2):
            _fit(model, opt, x, y)
            evaluate()
    found = [f for f in w.report().findings if f.code == "GD211"]
    assert len(found) == 1 and found[0].severity == Severity.WARNING
    assert found[0].evidence["metric_line"] is not None and found[0].evidence["layers"] == ["Dropout"]


def test_dropout_with_p_zero_changes_nothing_and_is_silent():
    x, y = _data()
    x_test, y_test = _data(32, seed=1)
    model = _model(0.0)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch() as w:
        for _ in range(2):
            _fit(model, opt, x, y)
            with torch.no_grad():
                accuracy = (model(x_test).argmax(1) == y_test).float().mean()
    # the oracle: train and eval outputs of this model are identical
    with torch.no_grad():
        assert torch.equal(model(x_test), model.eval()(x_test))
    assert "GD211" not in w.report().codes, str(accuracy)


def test_sampling_with_dropout_on_and_no_metric_is_only_information():
    x, y = _data()
    model = _model(0.3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def sample(n):
        with torch.no_grad():
            probs = F.softmax(model(torch.randn(n, 8)), dim=-1)
        return torch.multinomial(probs, 1)

    with watch() as w:
        for _ in range(2):
            _fit(model, opt, x, y)
            sample(4)
    found = [f for f in w.report().findings if f.code == "GD211"]
    assert found and all(f.severity == Severity.INFO for f in found)
    assert found[0].evidence["metric_line"] is None
