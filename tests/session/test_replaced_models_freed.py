"""A model the script drops is freed under watch(), as without it: a loop that builds a new model
(and optimizer) per fold must not keep every fold's model alive to the end, nor be told that the
folds it stopped training get no gradient. The models still alive are in the report."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch
from torch import nn

import graddoctor
from graddoctor.finding import Severity

FOLDS = 20


def _train_folds(w, refs: list, steps: int = 30, new_optimizer: bool = True):
    """Train FOLDS models in turn under `w`, each its own fresh model; returns the last one."""
    x = torch.randn(64, 8)
    y = x[:, :1] - 0.5 * x[:, 1:2]
    model = opt = None
    for fold in range(FOLDS):
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
        if new_optimizer or opt is None:
            opt = torch.optim.SGD(model.parameters(), lr=0.05)
        refs.append(weakref.ref(model))
        for _ in range(steps):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
    return model


def test_models_rebuilt_each_fold_are_freed_and_the_last_is_reported():
    torch.manual_seed(0)
    refs: list = []
    w = graddoctor.watch()
    with w:
        last = _train_folds(w, refs)
    gc.collect()
    alive = [r for r in refs if r() is not None]
    assert alive == [refs[-1]], f"{len(alive)} of {FOLDS} fold models still alive"
    labels = [label for label, m in w.session.models().items() if m is last]
    assert labels == [f"model#{FOLDS}"], labels
    report = w.report()
    assert {f"model#{FOLDS}.0", f"model#{FOLDS}.2"} <= {row.name for row in report.layers}, report.layers
    # The folds trained before the last sampled walk are not "parameters without gradient" (GD104).
    bad = [(f.code, f.message) for f in report.findings if f.severity >= Severity.WARNING]
    assert not bad, bad
    assert report.steps_observed == FOLDS * 30


def test_the_last_model_is_reported_when_the_script_no_longer_holds_it():
    """`graddoctor run` makes its report after the script's globals are gone: the models of the
    latest discovery are held for it (here: the model of a function's frame, gone at the report)."""
    torch.manual_seed(0)
    refs: list = []
    w = graddoctor.watch()
    with w:
        _train_folds(w, refs)  # the last model is a local of the function: gone now
    gc.collect()
    assert refs[-1]() is not None and not any(r() for r in refs[:-1])
    labels = [label for label, m in w.session.models().items() if m is refs[-1]()]
    assert labels == [f"model#{FOLDS}"], labels


def test_labels_of_freed_models_are_not_given_again():
    """`model#2` is the second object `model` held, also once the first is freed (its id may be reused)."""
    torch.manual_seed(0)
    refs: list = []
    w = graddoctor.watch()
    with w:
        _train_folds(w, refs)
    ours = {id(r()) for r in refs if r() is not None}
    labels = [label for label, m in w.session.models().items() if id(m) in ours]
    assert labels == [f"model#{FOLDS}"], labels


def test_a_kept_optimizer_over_a_rebuilt_model_is_still_gd106():
    torch.manual_seed(0)
    w = graddoctor.watch()
    with w:
        _train_folds(w, [], new_optimizer=False)
    assert "GD106" in w.report().codes


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_run_script_names_its_global_model_in_the_report(graddoctor_cli):
    script = """
    import torch
    from torch import nn

    torch.manual_seed(0)
    x = torch.randn(64, 8)
    y = x[:, :1] - 0.5 * x[:, 1:2]
    for fold in range(5):
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        for _ in range(40):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
    """
    ran = graddoctor_cli("run", "train.py", script=script)
    assert ran.report is not None, ran.stderr
    names = [row["name"] for row in ran.report["layers"]]
    assert names[:2] == ["model#5.0", "model#5.2"], names
    assert not [f for f in ran.report["findings"] if f["severity"] in ("error", "warning")], ran.stdout
