"""With several cuts in a program, the one named is on the path from the parameters without a
gradient to the loss meant to train them; a cut another loss needs is never named (SPEC section 5).

Real programs through the real `graddoctor run` command.
"""

from __future__ import annotations

import pytest

from tests.provenance.conftest import line_of

GAN = """
import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
for step in range(30):
    real = torch.randn(32, 2) + 3
    fake = G(torch.randn(32, 4))
    opt_d.zero_grad()
    loss_d = bce(D(real), torch.ones(32, 1)) + bce(D(fake.detach()), torch.zeros(32, 1))
    loss_d.backward()
    opt_d.step()
    opt_g.zero_grad()
    loss_g = bce(D(fake.detach()), torch.ones(32, 1))
    loss_g.backward()
    opt_g.step()
"""


def test_gan_generator_step_detach_is_named_not_the_discriminators(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=GAN)
    found = ran.finding("GD104")
    assert (found["file"], found["line"]) == ("train.py", line_of(GAN, "loss_g = bce(D(fake.detach())"))
    assert found["subjects"] == ["G.0.weight", "G.0.bias", "G.2.weight", "G.2.bias"]
    lines = [found["line"]] + [r["line"] for r in found["related"]]
    assert line_of(GAN, "loss_d = bce(") not in lines  # the discriminator step's detach is correct
    assert line_of(GAN, "loss_g.backward()") in lines  # the backward of the loss meant to train G
    assert [f["code"] for f in ran.report["findings"]].count("GD104") == 1


def test_gan_with_the_generator_step_fixed_is_silent(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=GAN.replace("loss_g = bce(D(fake.detach())", "loss_g = bce(D(fake)"))
    assert [f["code"] for f in ran.report["findings"] if f["severity"] != "info"] == []


LM = """
import torch
from torch import nn

torch.manual_seed(0)


class LM(nn.Module):
    def __init__(self, vocab=50, emb=16, hidden=32):
        super().__init__()
        self.hidden = hidden
        self.encoder = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, x, state):
        emb = self.encoder(x)
        out, state = self.rnn(emb, state)
        return self.decoder(out), state

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(1, bsz, self.hidden), weight.new_zeros(1, bsz, self.hidden))


model = LM()
opt = torch.optim.SGD(model.parameters(), lr=0.5)
data = torch.randint(0, 50, (200, 4))
for epoch in range(2):
    state = model.init_hidden(4)
    for i in range(0, 180, 10):
        x, y = data[i:i + 10], data[i + 1:i + 11]
        state = tuple(s.detach() for s in state)
        opt.zero_grad()
        out, state = model(x, state)
        loss = nn.functional.cross_entropy(out.reshape(-1, 50), y.reshape(-1))
        loss.backward()
        opt.step()
"""
LM_DETACHED = LM.replace("emb = self.encoder(x)", "emb = self.encoder(x).detach()")
LM_NO_GRAD = LM.replace("        emb = self.encoder(x)", "        with torch.no_grad():\n            emb = self.encoder(x)")


def _named_lines(ran) -> set[int]:
    return {f["line"] for f in ran.report["findings"]} | {
        r["line"] for f in ran.report["findings"] for r in f["related"]}


def test_rnn_lm_detached_embedding_names_the_detach_not_init_hidden(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=LM_DETACHED)
    found = ran.finding("GD104")
    assert (found["line"], found["subjects"]) == (line_of(LM_DETACHED, "emb = self.encoder(x).detach()"), ["model.encoder.weight"])
    assert line_of(LM_DETACHED, "weight.new_zeros") not in _named_lines(ran)
    assert ran.codes() == ["GD104"]


def test_rnn_lm_embedding_under_no_grad_is_gd110_at_the_no_grad_line(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=LM_NO_GRAD)
    found = ran.finding("GD110")
    assert (found["line"], found["subjects"]) == (line_of(LM_NO_GRAD, "with torch.no_grad():"), ["model.encoder.weight"])
    assert line_of(LM_NO_GRAD, "emb = self.encoder(x)") in [r["line"] for r in found["related"]]
    assert line_of(LM_NO_GRAD, "weight.new_zeros") not in _named_lines(ran)
    assert ran.codes() == ["GD110"]


ZEROS_LIKE = LM.replace(
    "return (weight.new_zeros(1, bsz, self.hidden), weight.new_zeros(1, bsz, self.hidden))",
    "z = torch.zeros_like(weight[:1, :1]).expand(1, bsz, self.hidden).contiguous()\n        return (z, z.clone())")


@pytest.mark.parametrize("script", [LM, ZEROS_LIKE], ids=["new_zeros", "zeros_like"])
def test_rnn_lm_state_from_a_parameter_shaped_factory_is_silent(graddoctor_cli, script):
    # `new_zeros` / `zeros_like` take only a shape from the parameter: they cut no path.
    ran = graddoctor_cli("run", "train.py", script=script)
    assert [f["code"] for f in ran.report["findings"] if f["severity"] != "info"] == []
