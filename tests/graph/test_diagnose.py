"""diagnose(): each graph code fires on a real model, with torch itself as the oracle,
and the SPEC section 5 near misses stay silent."""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

import graddoctor


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.head = nn.Linear(8, 2)
        self.aux = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.encoder(x))


def errors_and_warnings(report):
    return [f for f in report.findings if f.severity >= graddoctor.Severity.WARNING]


def test_gd104_names_exactly_the_unreached_parameters_and_torch_agrees():
    model = TwoHeads()
    loss = model(torch.randn(3, 4)).pow(2).mean()
    report = graddoctor.diagnose(loss, model)
    assert report.codes == ["GD104"]
    finding = report.findings[0]
    assert finding.subjects == ["model.aux.weight", "model.aux.bias"]
    assert finding.line is not None and finding.file.endswith("test_diagnose.py")
    loss.backward()  # the oracle: exactly those have no gradient
    no_grad = sorted(f"model.{n}" for n, p in model.named_parameters() if p.grad is None)
    assert no_grad == sorted(finding.subjects)


def test_gd104_judged_against_the_optimizer_when_given():
    model = TwoHeads()
    opt = torch.optim.SGD(list(model.encoder.parameters()) + list(model.head.parameters()), lr=0.1)
    loss = model(torch.randn(3, 4)).sum()
    # aux is not in the optimizer and not reached: not trained on purpose, nothing to say.
    assert graddoctor.diagnose(loss, model, opt).ok


def test_gd101_python_number():
    model = TwoHeads()
    value = model(torch.randn(3, 4)).mean().item()
    report = graddoctor.diagnose(value, model)
    assert report.codes == ["GD101"]
    assert "Python float" in report.findings[0].message


def test_gd102_detached_loss():
    model = TwoHeads()
    loss = model(torch.randn(3, 4)).detach().mean()
    report = graddoctor.diagnose(loss, model)
    assert report.codes == ["GD102"]
    with pytest.raises(RuntimeError, match="does not require grad"):
        loss.backward()


def test_gd103_non_scalar_loss():
    model = TwoHeads()
    loss = nn.CrossEntropyLoss(reduction="none")(model(torch.randn(3, 4)), torch.tensor([0, 1, 0]))
    report = graddoctor.diagnose(loss, model)
    assert "GD103" in report.codes
    assert "3 elements" in report.findings[0].message
    with pytest.raises(RuntimeError, match="scalar outputs"):
        loss.backward()


def test_gd110_loss_made_under_inference_mode():
    model = TwoHeads()
    with torch.inference_mode():
        loss = model(torch.randn(3, 4)).mean()
    assert graddoctor.diagnose(loss, model).codes == ["GD110"]


def test_gd110_when_diagnosed_inside_no_grad():
    model = TwoHeads()
    with torch.no_grad():
        loss = model(torch.randn(3, 4)).mean()
        assert graddoctor.diagnose(loss, model).codes == ["GD110"]


def test_gd301_non_finite_loss():
    model = TwoHeads()
    loss = model(torch.randn(3, 4)).mean() * float("nan")
    report = graddoctor.diagnose(loss, model)
    assert "GD301" in report.codes


class PlainList(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(4, 4), nn.Linear(4, 4)]
        self.temperature = torch.ones(1, requires_grad=True)
        self.out = nn.Linear(4, 1)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.out(x) / self.temperature


def test_gd105_says_which_attribute_holds_them_and_where_it_is_assigned():
    model = PlainList()
    loss = model(torch.randn(2, 4)).mean()
    report = graddoctor.diagnose(loss, model)
    by_subject = {tuple(f.subjects): f for f in report.findings if f.code == "GD105"}
    blocks = by_subject[("model.blocks[0].weight", "model.blocks[0].bias", "model.blocks[1].weight", "model.blocks[1].bias")]
    assert "plain Python list `PlainList.blocks`" in blocks.message
    assert blocks.line == PlainList.__init__.__code__.co_firstlineno + 2
    temperature = by_subject[("model.temperature",)]
    assert "nn.Parameter" in temperature.hint
    # The oracle: model.parameters() really does not list them.
    listed = {id(p) for p in model.parameters()}
    assert id(model.temperature) not in listed
    assert all(id(p) not in listed for block in model.blocks for p in block.parameters())


def test_gd106_and_gd210_point_at_the_optimizer_construction():
    model = TwoHeads()
    model.aux.requires_grad_(False)
    opt = torch.optim.SGD(model.parameters(), lr=0.1); line = __import__("inspect").currentframe().f_lineno  # noqa: E702
    model.head = nn.Linear(8, 2)  # replaced after the optimizer was built
    from graddoctor.locate import Location
    from graddoctor.session.registry import remember_creation

    remember_creation(opt, Location(__file__, line, 11))
    loss = model(torch.randn(3, 4)).sum()
    report = graddoctor.diagnose(loss, model, opt)
    gd106 = next(f for f in report.findings if f.code == "GD106")
    assert gd106.subjects == ["model.head.weight", "model.head.bias"]
    assert gd106.line == line
    gd210 = next(f for f in report.findings if f.code == "GD210")
    assert gd210.subjects == ["model.aux.weight", "model.aux.bias"] and str(gd210.severity) == "info"


# --- near misses: correct code that must stay silent -----------------------------------------


def test_frozen_backbone_is_silent():
    model = TwoHeads()
    model.encoder.requires_grad_(False)
    model.aux.requires_grad_(False)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad])
    loss = model(torch.randn(3, 4)).mean()
    assert errors_and_warnings(graddoctor.diagnose(loss, model, opt)) == []


def test_teacher_under_no_grad_is_silent():
    student, teacher = TwoHeads(), TwoHeads()
    student.aux.requires_grad_(False)
    opt = torch.optim.SGD([p for p in student.parameters() if p.requires_grad], lr=0.1)
    x = torch.randn(3, 4)
    with torch.no_grad():
        target = teacher(x)
    loss = (student(x) - target).pow(2).mean()
    assert graddoctor.diagnose(loss, student, opt).ok


def test_gan_discriminator_step_with_detached_fake_is_silent():
    generator = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 4))
    discriminator = nn.Sequential(nn.Linear(4, 4), nn.LeakyReLU(0.2), nn.Linear(4, 1))
    opt_d = torch.optim.Adam(discriminator.parameters())
    fake = generator(torch.randn(8, 2))
    d_loss = nn.functional.softplus(discriminator(fake.detach())).mean()
    assert graddoctor.diagnose(d_loss, discriminator, opt_d).ok


def test_item_for_logging_and_detach_of_plain_tensors_are_silent():
    model = TwoHeads()
    model.aux.requires_grad_(False)
    x = torch.randn(3, 4).detach()  # never required grad
    loss = model(x).pow(2).mean()
    logged = loss.item()
    assert isinstance(logged, float)
    assert graddoctor.diagnose(loss, model).ok


def test_deliberately_unused_and_frozen_module_is_silent():
    model = TwoHeads()
    model.aux.requires_grad_(False)
    loss = model(torch.randn(3, 4)).mean()
    assert graddoctor.diagnose(loss, model).ok


def test_diagnose_changes_nothing():
    model = TwoHeads()
    before = copy.deepcopy(model.state_dict())
    loss = model(torch.randn(3, 4)).mean()
    graddoctor.diagnose(loss, model)
    assert loss.grad_fn is not None
    assert all(p.grad is None for p in model.parameters())
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_with_neither_model_nor_optimizer_only_the_loss_is_judged():
    model = TwoHeads()
    assert graddoctor.diagnose(model(torch.randn(3, 4)).mean()).codes == []
