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


def test_optimizers_of_finished_folds_are_freed_and_their_steps_reported():
    torch.manual_seed(0)
    opts: list = []
    w = graddoctor.watch()
    real = torch.optim.SGD

    def keep(params, **kw):  # every optimizer the folds build, weakly
        opt = real(params, **kw)
        opts.append(weakref.ref(opt))
        return opt

    torch.optim.SGD = keep
    try:
        with w:
            _train_folds(w, [])
    finally:
        torch.optim.SGD = real
    gc.collect()
    assert len(opts) == FOLDS
    alive = [r for r in opts if r() is not None]
    assert len(alive) <= 1, f"{len(alive)} of {FOLDS} optimizers still alive"  # the last one, held for the report
    by_name = w.report().steps_by_optimizer
    assert len(by_name) == FOLDS and set(by_name.values()) == {30}, by_name


def test_a_finding_on_a_freed_optimizer_stays_when_its_id_is_reused():
    """GD208 of the first fold (trained in eval mode) is reported, though its optimizer is freed
    and the next optimizer has its id (as CPython often gives: here made certain by moving the
    audit's entry to the next optimizer's id, which is what a reused address looks like)."""
    from graddoctor.observers.loop_audit import LoopAudit

    torch.manual_seed(0)
    x = torch.randn(64, 8)
    y = x[:, :1]
    w = graddoctor.watch()
    audit = next(o for o in w.session.observers if isinstance(o, LoopAudit))
    opt = None
    with w:
        for fold in range(3):
            model = nn.Sequential(nn.Linear(8, 16), nn.Dropout(0.1), nn.ReLU(), nn.Linear(16, 1))
            if fold == 0:
                model.eval()
            before = audit._states.pop(id(opt)) if fold == 1 else None  # fold 0's optimizer's
            opt = torch.optim.SGD(model.parameters(), lr=0.05)
            if before is not None:
                audit._states[id(opt)] = before  # as if the new optimizer had the old one's address
            for _ in range(10):
                opt.zero_grad()
                nn.functional.mse_loss(model(x), y).backward()
                opt.step()
    assert "GD208" in w.report().codes


def test_parameters_of_freed_folds_are_freed_and_the_layer_table_is_the_last_folds():
    """The gradient statistics hold a fold's parameters only while its optimizer lives: a layer
    table of 20 folds x 2 layers would name layers the script no longer has."""
    torch.manual_seed(0)
    refs: list = []
    params: list = []
    w = graddoctor.watch()
    x = torch.randn(64, 8)
    y = x[:, :1] - 0.5 * x[:, 1:2]
    with w:
        for fold in range(FOLDS):
            model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
            opt = torch.optim.SGD(model.parameters(), lr=0.05)
            refs.append(weakref.ref(model))
            params.extend(weakref.ref(p) for p in model.parameters())
            for _ in range(30):
                opt.zero_grad()
                nn.functional.mse_loss(model(x), y).backward()
                opt.step()
        del model, opt
        gc.collect()
        alive = [p for p in params[:-4] if p() is not None]
        assert not alive, f"{len(alive)} parameters of {FOLDS - 1} dropped folds still alive"
    report = w.report()
    assert [row.name for row in report.layers] == [f"model#{FOLDS}.0", f"model#{FOLDS}.2"], report.layers
    assert not [f for f in report.findings if f.severity >= Severity.WARNING], report.findings
    assert report.steps_observed == FOLDS * 30


def _two_phases(rebuild_without_head: bool):
    """Phase 1 trains `net` (body and head) with an optimizer built inline and dropped; phase 2
    either distils a student from the frozen `net` (correct), or rebuilds the optimizer over the
    body only while the head still gets gradients (GD106: the head is trained by no optimizer)."""
    torch.manual_seed(0)
    x = torch.randn(64, 8)
    y = (x[:, 0] > 0).long()
    net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))

    def train(model, optimizer, steps, loss_of):
        for _ in range(steps):
            optimizer.zero_grad()
            loss_of(model).backward()
            optimizer.step()

    w = graddoctor.watch()
    with w:
        train(net, torch.optim.Adam(net.parameters(), lr=1e-2), 20, lambda m: nn.functional.cross_entropy(m(x), y))
        if rebuild_without_head:
            train(net, torch.optim.SGD(net[0].parameters(), lr=1e-2), 20,
                  lambda m: nn.functional.cross_entropy(m(x), y))
        else:
            student = nn.Linear(8, 2)

            def distill(m):
                with torch.no_grad():
                    soft = net(x).softmax(1)
                return nn.functional.kl_div(m(x).log_softmax(1), soft, reduction="batchmean")

            train(student, torch.optim.SGD(student.parameters(), lr=0.1), 20, distill)
    return w.report()


def test_a_teacher_trained_by_an_optimizer_since_dropped_is_not_gd106():
    report = _two_phases(rebuild_without_head=False)
    assert not [f for f in report.findings if f.severity >= Severity.WARNING], report.findings


def test_a_head_left_out_of_the_rebuilt_optimizer_is_still_gd106():
    report = _two_phases(rebuild_without_head=True)
    [found] = [f for f in report.findings if f.code == "GD106"]
    assert [s.split(".", 1)[1] for s in found.subjects] == ["2.weight", "2.bias"], found.subjects
