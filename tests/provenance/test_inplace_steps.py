"""Issue 11 item 6: GD108 names the optimizer step (or the no_grad edit) that bumped a saved tensor.

"modified by an inplace operation" from a GAN that steps the discriminator
before the generator's backward: the edit is `opt_D.step()`, not an `x.op_()`.
"""

from __future__ import annotations

from tests.provenance.conftest import line_of

GAN = """
import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 8))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


torch.manual_seed(0)
netG, netD = Generator(), Discriminator()
opt_G = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_D = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()
data = torch.randn(256, 8) * 0.5 + 1.0
for epoch in range(2):
    for i in range(0, 256, 64):
        real = data[i:i + 64]
        fake = netG(torch.randn(64, 4))
{body}
"""

WRONG_ORDER = """
        D_real, D_fake = netD(real), netD(fake)
        D_loss = bce(D_real, torch.ones_like(D_real)) + bce(D_fake, torch.zeros_like(D_fake))
        G_loss = bce(D_fake, torch.ones_like(D_fake))
        opt_D.zero_grad()
        D_loss.backward(retain_graph=True)
        opt_D.step()
        opt_G.zero_grad()
        G_loss.backward()
        opt_G.step()
"""

RIGHT_ORDER = """
        D_real, D_fake = netD(real), netD(fake.detach())
        D_loss = bce(D_real, torch.ones_like(D_real)) + bce(D_fake, torch.zeros_like(D_fake))
        opt_D.zero_grad()
        D_loss.backward()
        opt_D.step()
        D_out = netD(fake)  # the discriminator after its step
        G_loss = bce(D_out, torch.ones_like(D_out))
        opt_G.zero_grad()
        G_loss.backward()
        opt_G.step()
"""


def _gan(body: str) -> str:
    return GAN.replace("{body}", body.strip("\n"))


def test_discriminator_step_before_generator_backward_is_gd108_at_the_step(run_script):
    train = _gan(WRONG_ORDER)
    ran = run_script({"train.py": train})
    assert ran.exception is not None and "inplace" in str(ran.exception)
    found = ran.only("GD108")
    assert (found.file, found.line) == ("train.py", line_of(train, "opt_D.step()"))
    assert "opt_D.step()" in found.message and "x.op_()" not in found.message
    assert found.subjects and found.subjects[0].endswith("net.2.weight")
    notes = {r.line: r.note for r in found.related}
    assert "fails" in notes[line_of(train, "G_loss.backward()")]


def test_gan_that_steps_after_both_backward_passes_is_silent(run_script):
    ran = run_script({"train.py": _gan(RIGHT_ORDER)})
    assert ran.exception is None
    assert ran.serious() == [], [(f.code, f.line, f.message) for f in ran.serious()]


MAX_NORM = """
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(10, 24)
        self.hidden = nn.Linear(24, 24)
        self.out = nn.Linear(24, 3)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(torch.tanh(self.embed(x)))))


def renorm_(layer, max_norm=1.0):
    with torch.no_grad():
        layer.weight.mul_(max_norm / layer.weight.norm(dim=1, keepdim=True).clamp(min=max_norm))


torch.manual_seed(0)
model = Tagger()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(96, 10), torch.randint(0, 3, (96,))
for epoch in range(3):
    for i in range(0, 96, 32):
        loss = nn.functional.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
        opt.zero_grad()
{where_before}
        loss.backward()
        opt.step()
{where_after}
"""


def test_max_norm_edit_between_forward_and_backward_is_gd108_at_the_edit(run_script):
    train = MAX_NORM.replace("{where_before}", "        renorm_(model.hidden)").replace("{where_after}", "")
    ran = run_script({"train.py": train})
    found = ran.only("GD108")
    assert (found.file, found.line) == ("train.py", line_of(train, "layer.weight.mul_("))
    assert "hidden.weight" in found.message and "no_grad" in found.message


def test_max_norm_edit_after_the_step_is_silent(run_script):
    train = MAX_NORM.replace("{where_before}", "").replace("{where_after}", "        renorm_(model.hidden)")
    ran = run_script({"train.py": train})
    assert ran.exception is None
    assert ran.serious() == [], [(f.code, f.line, f.message) for f in ran.serious()]
