"""GD104/GD106/GD110 are errors only with evidence of harm (issue 29); each case has its near miss.

- A frozen teacher held by the optimizer (vit-pytorch's `DistillWrapper` pattern: the teacher runs under
  `torch.no_grad()` and its logits are only a target) is information; a no_grad block whose output feeds a
  layer that trains is the error.
- First-order MAML, the meta-gradient taken from adapted copies and set by hand (`p.grad = ...`): the
  model's parameters do get gradients, so no GD104, and the copies outside the optimizer are information;
  the same loop that forgets to hand the meta-gradient over is the error.
- A branch defined and never called stays an error however small (SPEC: an unused branch; a forgotten
  auxiliary head is a sliver of a large model), with its share of the model as evidence.
"""

from __future__ import annotations

import copy
import math

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import Severity, watch


class Teacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.features(x))


class Student(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 32), nn.GELU())
        self.head = nn.Linear(32, 10)
        self.distill_head = nn.Linear(32, 10)

    def forward(self, x):
        h = self.body(x)
        return self.head(h), self.distill_head(h)


class DistillWrapper(nn.Module):
    """Soft distillation as DeiT does it: the teacher's logits are the target of a KL term."""

    def __init__(self, student, teacher, temperature=3.0, alpha=0.5):
        super().__init__()
        self.student, self.teacher = student, teacher
        self.temperature, self.alpha = temperature, alpha

    def forward(self, img, labels):
        logits, distill_logits = self.student(img)
        with torch.no_grad():
            teacher_logits = self.teacher(img)
        T = self.temperature
        distill = F.kl_div(F.log_softmax(distill_logits / T, dim=-1), F.softmax(teacher_logits / T, dim=-1),
                           reduction="batchmean") * T * T
        return F.cross_entropy(logits, labels) * (1 - self.alpha) + distill * self.alpha


class FrozenByMistake(nn.Module):
    """The near miss: the no_grad block's output is the input of a layer that trains."""

    def __init__(self):
        super().__init__()
        self.backbone = Teacher()
        self.head = nn.Linear(10, 10)

    def forward(self, img, labels):
        with torch.no_grad():
            feats = self.backbone(img)
        return F.cross_entropy(self.head(feats), labels)


def _distill(model, steps=6, deep=True):
    torch.manual_seed(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)  # the teacher's parameters included
    prototypes = torch.randn(10, 3, 8, 8)
    with watch(model, optimizer, deep=deep) as w:
        for _ in range(steps):
            labels = torch.randint(0, 10, (16,))
            loss = model(prototypes[labels] + 0.5 * torch.randn(16, 3, 8, 8), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return w.report()


@pytest.mark.parametrize("deep", [True, False], ids=["deep", "plain watch"])
def test_a_frozen_teacher_whose_logits_are_only_a_target_is_information(deep):
    # plain watch(): the first walks leave the teacher unreached, so one step is recorded deeply
    torch.manual_seed(0)
    report = _distill(DistillWrapper(Student(), Teacher().eval()), deep=deep)
    loud = [f for f in report.findings if f.severity >= Severity.WARNING]
    assert loud == [], [f.message for f in loud]
    teacher = [f for f in report.findings if f.code == "GD110"]
    assert len(teacher) == 1 and teacher[0].severity == Severity.INFO
    assert all(name.startswith("model.teacher.") for name in teacher[0].subjects)
    assert teacher[0].evidence["cut_fed_trained_layers"] is False
    assert teacher[0].evidence["parameters_without_grad"] == 6


@pytest.mark.parametrize("deep", [True, False], ids=["deep", "plain watch"])
def test_near_miss_a_no_grad_block_that_feeds_a_trained_layer_is_the_error(deep):
    torch.manual_seed(0)
    report = _distill(FrozenByMistake(), deep=deep)
    found = [f for f in report.findings if f.code == "GD110"]
    assert len(found) == 1 and found[0].severity == Severity.ERROR, [f.message for f in report.findings]
    assert all(name.startswith("model.backbone.") for name in found[0].subjects)
    assert found[0].evidence["cut_fed_trained_layers"] is True


def _first_order_maml(hand_over_meta_gradient: bool, meta_steps=5, tasks=3):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 1))
    meta_optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with watch() as w:
        for _ in range(meta_steps):
            meta_optimizer.zero_grad()
            for _ in range(tasks):
                amplitude, phase = torch.rand(1) * 4.9 + 0.1, torch.rand(1) * math.pi
                x = torch.rand(20, 1) * 10 - 5
                y = amplitude * torch.sin(x + phase)
                learner = copy.deepcopy(model)
                for _ in range(2):
                    grads = torch.autograd.grad(F.mse_loss(learner(x[:10]), y[:10]), list(learner.parameters()))
                    with torch.no_grad():
                        for p, g in zip(learner.parameters(), grads):
                            p -= 0.01 * g
                F.mse_loss(learner(x[10:]), y[10:]).backward()
                if hand_over_meta_gradient:
                    for p, q in zip(model.parameters(), learner.parameters()):
                        p.grad = q.grad / tasks if p.grad is None else p.grad + q.grad / tasks
            meta_optimizer.step()
    return w.report()


def test_first_order_maml_meta_gradient_set_by_hand_is_no_gd104():
    report = _first_order_maml(hand_over_meta_gradient=True)
    loud = [f for f in report.findings if f.severity >= Severity.WARNING]
    assert loud == [], [f.message for f in loud]
    copies = [f for f in report.findings if f.code == "GD106"]
    assert copies and copies[0].evidence["optimizer_parameters_all_had_grad_at_step"] is True


def test_near_miss_maml_that_never_hands_the_meta_gradient_over_is_gd104():
    report = _first_order_maml(hand_over_meta_gradient=False)
    found = [f for f in report.findings if f.code == "GD104"]
    assert len(found) == 1 and found[0].severity == Severity.ERROR, [f.message for f in report.findings]
    assert found[0].subjects == ["model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias"]
    assert found[0].evidence["optimizer_steps_checked"] >= 1


class Generator(nn.Module):
    def __init__(self, latent=100, unused: str = "label_emb"):
        super().__init__()
        if unused == "label_emb":
            self.label_emb = nn.Embedding(10, latent)  # left over from a conditional GAN, never called
        else:
            self.refine = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024))  # never called
        self.l1 = nn.Linear(latent, 64 * 4 * 4)
        self.conv = nn.Sequential(nn.BatchNorm2d(64), nn.Upsample(scale_factor=2), nn.Conv2d(64, 64, 3, padding=1),
                                  nn.LeakyReLU(0.2), nn.Conv2d(64, 1, 3, padding=1), nn.Tanh())

    def forward(self, z):
        return self.conv(self.l1(z).view(z.shape[0], 64, 4, 4))


def _gan(unused: str):
    torch.manual_seed(0)
    generator = Generator(unused=unused)
    discriminator = nn.Sequential(nn.Conv2d(1, 8, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * 4 * 4, 1))
    opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()
    with watch(generator, [opt_g, opt_d]) as w:
        for _ in range(5):
            real, ones, zeros = torch.rand(16, 1, 8, 8) * 2 - 1, torch.ones(16, 1), torch.zeros(16, 1)
            opt_g.zero_grad()
            fake = generator(torch.randn(16, 100))
            bce(discriminator(fake), ones).backward()
            opt_g.step()
            opt_d.zero_grad()
            ((bce(discriminator(real), ones) + bce(discriminator(fake.detach()), zeros)) / 2).backward()
            opt_d.step()
    return [f for f in w.report().findings if f.code == "GD104"]


def test_an_embedding_defined_and_never_called_is_an_error_with_its_share_as_evidence():
    # PyTorch-GAN's SGAN generator keeps a `label_emb` it never calls: 0.1% of the generator, in the
    # optimizer, never trained. The same shape as a forgotten auxiliary head, which is a real bug.
    found = _gan("label_emb")
    assert len(found) == 1 and found[0].severity == Severity.ERROR
    assert found[0].subjects == ["generator.label_emb.weight"]
    assert found[0].evidence["model_share"] < 0.01


def test_a_large_branch_never_called_is_the_error_too():
    found = _gan("refine")
    assert len(found) == 1 and found[0].severity == Severity.ERROR
    assert found[0].evidence["model_share"] > 0.5


def _style_transfer(optimize_the_image: bool):
    """yunjey's neural style transfer: Adam over the target image, through a fixed feature network."""
    torch.manual_seed(0)
    features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1)).eval()
    content, style = torch.rand(1, 3, 16, 16), torch.rand(1, 3, 16, 16)
    target = content.clone().requires_grad_(True)
    head = nn.Conv2d(8, 8, 1)
    optimizer = torch.optim.Adam([target] if optimize_the_image else list(head.parameters()), lr=0.01)
    with watch() as w:
        for _ in range(4):
            f_target, f_content, f_style = features(target), features(content), features(style)
            if not optimize_the_image:
                f_target = head(f_target)
            gram = lambda f: f.flatten(2) @ f.flatten(2).transpose(1, 2)  # noqa: E731
            loss = F.mse_loss(f_target, f_content) + F.mse_loss(gram(f_target), gram(f_style))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return [f for f in w.report().findings if f.code == "GD106"]


def test_an_optimizer_over_an_input_image_leaves_the_fixed_network_as_information():
    found = _style_transfer(optimize_the_image=True)
    assert len(found) == 1 and found[0].severity == Severity.INFO, [f.message for f in found]
    assert found[0].evidence["optimizer_holds_only_inputs"] == 1


def test_near_miss_an_optimizer_over_a_head_only_leaves_the_network_out_as_the_error():
    found = _style_transfer(optimize_the_image=False)
    assert len(found) == 1 and found[0].severity == Severity.ERROR, [f.message for f in found]
