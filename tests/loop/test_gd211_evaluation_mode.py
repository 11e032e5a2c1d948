"""GD211 evaluation-in-training-mode at runtime: evaluations that fire, and the near misses of SPEC 5
(MC dropout, a GAN's generator samples, a teacher, a metric on the training batch) that stay silent."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch


def _digits(n=96, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, 6, 6, generator=g)
    return x, (x.mean(dim=(1, 2, 3)) > 0).long()


def _classifier(dropout=True, batchnorm=True):
    layers = [nn.Flatten(), nn.Linear(36, 16)]
    if batchnorm:
        layers.append(nn.BatchNorm1d(16))
    layers.append(nn.ReLU())
    if dropout:
        layers.append(nn.Dropout(0.3))
    layers.append(nn.Linear(16, 2))
    return nn.Sequential(*layers)


def _train(model, opt, x, y, steps=6):
    for i in range(steps):
        xb, yb = x[i * 16 % 96:(i * 16 % 96) + 16], y[i * 16 % 96:(i * 16 % 96) + 16]
        opt.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        opt.step()


def _gd211(w):
    return [f for f in w.report().findings if f.code == "GD211"]


def _noisy(w):
    assert not w.session.internal_errors, w.session.internal_errors
    return [f"{f.code}: {f.message}" for f in w.report().findings if f.severity >= 2]


def test_evaluation_under_no_grad_between_epochs_without_eval_fires():
    x, y = _digits()
    x_test, y_test = _digits(32, seed=1)
    model = _classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch() as w:
        for epoch in range(2):
            model.train()
            _train(model, opt, x, y)
            with torch.no_grad():
                for i in range(0, 32, 8):
                    accuracy = (model(x_test[i:i + 8]).argmax(1) == y_test[i:i + 8]).float().mean()  # line: eval
    found = _gd211(w)
    assert len(found) == 1, w.report()
    f = found[0]
    assert f.line is not None and "line: eval" in open(__file__).read().splitlines()[f.line - 1]
    assert "BatchNorm1d" in f.message and "Dropout" in f.message and "after 6 optimizer steps" in f.message
    assert any("model.train()" in open(__file__).read().splitlines()[r.line - 1] for r in f.related)
    assert float(accuracy) >= 0  # the user's own value, untouched


def test_evaluation_after_training_without_no_grad_fires():
    x, y = _digits()
    model = _classifier(batchnorm=False)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    with watch() as w:
        _train(model, opt, x, y)
        logits = model(x[:32])  # the whole test set, graph and all, never backpropagated
        accuracy = (logits.argmax(1) == y[:32]).float().mean().item()
    found = _gd211(w)
    assert len(found) == 1 and "never reached a backward" in found[0].message, w.report()
    assert "Dropout" in found[0].message and accuracy >= 0


def test_evaluation_after_eval_is_silent_and_training_resumes():
    x, y = _digits()
    model = _classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch() as w:
        for epoch in range(2):
            model.train()
            _train(model, opt, x, y)
            model.eval()
            with torch.no_grad():
                model(x[:32])
            val = model(x[32:64]).sum().item()  # in eval mode, even with a graph
    assert _noisy(w) == [] and _gd211(w) == [] and val == val


def test_model_without_dropout_or_batchnorm_is_silent():
    x, y = _digits()
    model = _classifier(dropout=False, batchnorm=False)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch() as w:
        _train(model, opt, x, y)
        with torch.no_grad():
            model(x[:32])
    assert _gd211(w) == []


def test_mc_dropout_enabled_on_purpose_is_silent():
    x, y = _digits()
    model = _classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch() as w:
        _train(model, opt, x, y)
        model.eval()
        for m in model.modules():
            if isinstance(m, nn.Dropout):
                m.train()  # Monte Carlo dropout: sample several predictions
        with torch.no_grad():
            samples = torch.stack([model(x[:16]).softmax(-1) for _ in range(5)])
    assert _gd211(w) == [] and samples.shape == (5, 16, 2)


def test_mc_dropout_without_eval_on_a_dropout_only_model_is_silent():
    x, y = _digits()
    model = _classifier(batchnorm=False)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch() as w:
        _train(model, opt, x, y)
        for m in model.modules():
            if isinstance(m, nn.Dropout):
                m.train()
        with torch.no_grad():
            torch.stack([model(x[:16]) for _ in range(5)])
    assert _gd211(w) == []


def test_accuracy_read_again_on_the_training_batch_is_silent():
    x, y = _digits()
    model = _classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch() as w:
        for i in range(6):
            xb, yb = x[i * 16:(i + 1) * 16], y[i * 16:(i + 1) * 16]
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
            with torch.no_grad():
                (model(xb).argmax(1) == yb).float().mean()
    assert _gd211(w) == []


def test_siamese_two_forwards_one_backward_is_silent():
    x, _ = _digits()
    model = _classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch() as w:
        for i in range(6):
            a, b = model(x[i * 16:(i + 1) * 16]), model(x[(i + 1) * 16 % 96:(i + 1) * 16 % 96 + 16])
            opt.zero_grad()
            F.mse_loss(a, b).backward()
            opt.step()
    assert _gd211(w) == []


class _Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 8), nn.Tanh())

    def forward(self, z):
        return self.net(z)


@pytest.mark.parametrize("sample_for_logging,d_dropout", [(False, True), (True, True), (True, False)])
def test_gan_generator_sampled_under_no_grad_is_silent(sample_for_logging, d_dropout):
    G = _Generator()
    D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Dropout(0.2 if d_dropout else 0.0), nn.Linear(16, 1))
    if not d_dropout:
        D = nn.Sequential(D[0], D[1], D[3])  # a discriminator without dropout: only the generator is watched
    opt_g, opt_d = torch.optim.Adam(G.parameters(), 1e-3), torch.optim.Adam(D.parameters(), 1e-3)
    fixed = torch.randn(16, 4)
    with watch() as w:
        for i in range(8):
            real = torch.randn(16, 8)
            with torch.no_grad():
                fake = G(torch.randn(16, 4))  # the discriminator's step needs no generator graph
            d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = F.softplus(-D(G(torch.randn(16, 4)))).mean()
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            if sample_for_logging and i % 4 == 3:
                with torch.no_grad():
                    G(fixed)  # images for the log, in training mode as GAN code does
        if sample_for_logging:
            with torch.no_grad():
                G(fixed)  # and the final grid
    assert _noisy(w) == [] and _gd211(w) == []


def test_teacher_in_eval_mode_and_student_training_is_silent():
    x, y = _digits()
    teacher = _classifier()
    t_opt = torch.optim.SGD(teacher.parameters(), lr=0.1)
    with watch() as w:
        _train(teacher, t_opt, x, y)
        teacher.eval()
        student = _classifier(dropout=False)
        s_opt = torch.optim.SGD(student.parameters(), lr=0.1)
        for i in range(6):
            xb = x[i * 16:(i + 1) * 16]
            with torch.no_grad():
                soft = teacher(xb).softmax(-1)
            s_opt.zero_grad()
            F.cross_entropy(student(xb), soft).backward()
            s_opt.step()
    assert _gd211(w) == []  # (the teacher is in eval mode; its outputs feed the student)


def test_a_crash_in_the_loss_after_the_forward_is_no_evaluation():
    x, y = _digits()
    model = _classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(IndexError):
        with watch() as w:
            _train(model, opt, x, y)
            F.cross_entropy(model(x[:16]), y[:16] + 5)  # target out of range: raises
    assert _gd211(w) == []


def test_hooks_and_train_patch_are_removed():
    x, y = _digits()
    model = _classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_before = nn.Module.train
    with watch():
        _train(model, opt, x, y)
        assert model._forward_hooks
    assert not model._forward_hooks and nn.Module.train is train_before


# --- through the real command ------------------------------------------------------------------

_MNIST_LIKE = '''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
images = torch.randn(192, 1, 6, 6)
labels = (images.mean(dim=(1, 2, 3)) > 0).long()
train_loader = DataLoader(TensorDataset(images[:128], labels[:128]), batch_size=32, shuffle=True)
test_loader = DataLoader(TensorDataset(images[128:], labels[128:]), batch_size=32)
model = nn.Sequential(nn.Flatten(), nn.Linear(36, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    EVAL
    with torch.no_grad():
        correct = sum((model(x).argmax(1) == y).sum().item() for x, y in test_loader)
    print(epoch, correct)
'''


def test_cli_names_the_test_pass_and_the_train_call(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=_MNIST_LIKE.replace("EVAL", "pass"))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    f = ran.finding("GD211")
    assert f["file"] == "train.py" and f["line"] == 21 and f["severity"] == "warning"
    assert [(r["line"], r["note"]) for r in f["related"]] == [(14, "training mode set here by train()")]
    assert ran.codes() == ["GD211"]


def test_cli_is_silent_with_eval_before_the_test_pass(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=_MNIST_LIKE.replace("EVAL", "model.eval()"))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.report["findings"] == []
