"""GD213: a backward for one optimizer's parameters followed by another optimizer's step, at both lines.

Real two-model loops under `watch()`: a GAN whose generator step calls the discriminator's
optimizer fires; a correct GAN, two optimizers over disjoint parts that both step, and an
optimizer that steps every k iterations stay silent.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from graddoctor import watch
from graddoctor.editing.source import Source, apply_change
from graddoctor.lint.engine import lint_source
from graddoctor.lint.selection import Selection
from graddoctor.rules.loop.gd213_wrong_optimizer_stepped import edit as gd213_edit

_SOURCE = Path(__file__).read_text().splitlines()
DEMO = (Path(__file__).resolve().parents[2] / "src/graddoctor/rules/loop/gd213_wrong_optimizer_stepped"
        / "gd213_gan_generator_step.py")


def line(marker: str) -> int:
    return next(i + 1 for i, text in enumerate(_SOURCE) if text.rstrip().endswith(f"# {marker}"))


def _gan():
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    discriminator = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    g_opt = torch.optim.Adam(generator.parameters(), lr=1e-3)
    d_opt = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
    return generator, discriminator, g_opt, d_opt


def _d_step(generator, discriminator, d_opt, bce):
    real = torch.randn(16, 2) + 2
    fake = generator(torch.randn(16, 4))
    d_opt.zero_grad()
    d_loss = bce(discriminator(real), torch.ones(16, 1)) + bce(discriminator(fake.detach()), torch.zeros(16, 1))
    d_loss.backward()
    d_opt.step()
    return fake


def test_generator_step_with_the_discriminators_optimizer_names_both_lines():
    generator, discriminator, g_opt, d_opt = _gan()
    bce = nn.BCEWithLogitsLoss()
    before = generator[0].weight.detach().clone()
    with watch(generator, g_opt) as w:
        for _ in range(6):
            fake = _d_step(generator, discriminator, d_opt, bce)
            g_opt.zero_grad()
            g_loss = bce(discriminator(fake), torch.ones(16, 1))
            g_loss.backward()  # the generator's backward
            d_opt.step()  # wrong step
    report = w.report()
    found = [f for f in report.findings if f.code == "GD213"]
    assert len(found) == 1, str(report)
    f = found[0]
    assert f.line == line("wrong step")
    assert any(r.line == line("the generator's backward") for r in f.related)
    assert f.evidence["wasted_gradients"] >= 2 and f.evidence["backward_line"] == line("the generator's backward")
    assert f.cause == {"stepped": "d_opt", "never_stepped": "g_opt"}
    assert torch.equal(generator[0].weight, before)  # the oracle: the generator really never moved
    # one cause, one finding: the discriminator's second step is not also a missing zero_grad, and
    # an optimizer did step, so no GD203
    assert not [g for g in report.findings if g.code in ("GD201", "GD203", "GD207")], str(report)
    assert not w.session.internal_errors


def test_correct_gan_alternating_steps_is_silent():
    generator, discriminator, g_opt, d_opt = _gan()
    bce = nn.BCEWithLogitsLoss()
    with watch(generator, g_opt) as w:
        for _ in range(6):
            fake = _d_step(generator, discriminator, d_opt, bce)
            g_opt.zero_grad()
            bce(discriminator(fake), torch.ones(16, 1)).backward()
            g_opt.step()
    assert "GD213" not in w.report().codes


def test_two_optimizers_over_disjoint_parts_both_stepping_is_silent():
    torch.manual_seed(0)
    encoder, head = nn.Linear(8, 16), nn.Linear(16, 3)
    enc_opt = torch.optim.SGD(encoder.parameters(), lr=0.01, momentum=0.9)
    head_opt = torch.optim.Adam(head.parameters(), lr=1e-3)
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    with watch() as w:
        for _ in range(6):
            enc_opt.zero_grad()
            head_opt.zero_grad()
            nn.functional.cross_entropy(head(torch.relu(encoder(x))), y).backward()
            head_opt.step()
            enc_opt.step()
    assert "GD213" not in w.report().codes


def test_optimizer_stepping_every_k_iterations_is_silent():
    """The encoder's optimizer steps on gradients accumulated over 4 batches, the head's every batch."""
    torch.manual_seed(0)
    encoder, head = nn.Linear(8, 16), nn.Linear(16, 3)
    enc_opt = torch.optim.SGD(encoder.parameters(), lr=0.01)
    head_opt = torch.optim.SGD(head.parameters(), lr=0.05)
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    with watch() as w:
        for i in range(12):
            head_opt.zero_grad()
            nn.functional.cross_entropy(head(torch.relu(encoder(x))), y).backward()
            head_opt.step()
            if (i + 1) % 4 == 0:
                enc_opt.step()
                enc_opt.zero_grad()
    assert "GD213" not in w.report().codes


_SELECT = Selection(("GD",), ())


def test_lint_finds_the_wrong_step_in_the_demo_and_the_edit_names_the_right_optimizer():
    text = DEMO.read_text()
    found = [f for f in lint_source(text, "gan.py", _SELECT).findings if f.code == "GD213"]
    expected = next(i + 1 for i, t in enumerate(text.splitlines()) if "expect: GD213" in t)
    assert [f.line for f in found] == [expected]
    assert any("g_loss.backward()" in text.splitlines()[r.line - 1] for r in found[0].related)
    src = Source(text)
    change = gd213_edit.edit(found[0], src)
    assert change is not None
    edited = apply_change(src, change).splitlines()
    assert edited[expected - 1].strip().startswith("g_optimizer.step()")
    assert not [f for f in lint_source("\n".join(edited), "gan.py", _SELECT).findings if f.code == "GD213"]


def test_lint_is_silent_on_a_correct_gan_and_on_an_optimizer_handed_to_a_helper():
    correct = DEMO.read_text().replace("    d_optimizer.step()  # expect: GD213", "    g_optimizer.step()")
    assert "GD213" not in {f.code for f in lint_source(correct, "gan.py", _SELECT).findings}
    handed = DEMO.read_text() + "\n\ndef finish(opt):\n    opt.step()\n\n\nfinish(g_optimizer)\n"
    assert "GD213" not in {f.code for f in lint_source(handed, "gan.py", _SELECT).findings}
