"""Issue 11 item 4: GD304/GD305 calibrated on real magnitudes and on the optimizer's kind.

The thresholds come from the correct corpus and the near misses below (see
NumericsOptions for the numbers): a sigmoid MLP whose first layer gets gradients
about 1000x smaller than the rest is GD304, Adam left at Adadelta's lr=1.0 is
GD305; deep ReLU, residual LayerNorm and transformer networks, frozen embeddings
and a large SGD step on a tiny parameter stay silent.
"""

from __future__ import annotations

import pytest

from tests.provenance.conftest import line_of, run_script  # noqa: F401  (the in-process `graddoctor run`)

ADAM = """import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 5))

    def forward(self, x):
        return self.net(x)


torch.manual_seed(0)
X = torch.randn(512, 20)
y = (X[:, :5].argmax(dim=1))
model = MLP()
# optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
optimizer = torch.optim.Adam(model.parameters(), lr=1.0)
for epoch in range(10):
    for i in range(0, 512, 64):
        loss = nn.functional.cross_entropy(model(X[i:i + 64]), y[i:i + 64])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

SIGMOID = """import torch
from torch import nn


class DeepSigmoidNet(nn.Module):
    def __init__(self, width=32, depth=6):
        super().__init__()
        layers = [nn.Linear(16, width), nn.Sigmoid()]
        for _ in range(depth - 2):
            layers += [nn.Linear(width, width), nn.Sigmoid()]
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X.sum(dim=1, keepdim=True) > 0).float()
model = DeepSigmoidNet()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for i in range(0, 512, 64):
        loss = nn.functional.binary_cross_entropy_with_logits(model(X[i:i + 64]), y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
"""

# The same network with ReLU, 10 layers deep, as a regression trained with momentum: healthy
# gradients. (Kept off BCE-with-logits: its small initial outputs all lie in [0, 1], which
# GD501 takes for probabilities; noted in the branch report.)
DEEP_RELU = (SIGMOID.replace("nn.Sigmoid()", "nn.ReLU()").replace("depth=6", "depth=10")
             .replace("DeepSigmoidNet", "DeepReLUNet").replace("lr=0.1)", "lr=0.01, momentum=0.9)")
             .replace("binary_cross_entropy_with_logits", "mse_loss"))

RESIDUAL = """import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.ff = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class ResMLP(nn.Module):
    def __init__(self, width=32, depth=8):
        super().__init__()
        self.inp = nn.Linear(12, width)
        self.blocks = nn.Sequential(*[Block(width) for _ in range(depth)])
        self.out = nn.Linear(width, 3)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


torch.manual_seed(0)
X = torch.randn(512, 12)
y = X[:, :3].argmax(dim=1)
model = ResMLP()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(6):
    for i in range(0, 512, 64):
        loss = nn.functional.cross_entropy(model(X[i:i + 64]), y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
"""

TRANSFORMER = """import torch
from torch import nn


class TextClassifier(nn.Module):
    def __init__(self, vocab=5000, d=64, classes=4, freeze_embeddings=False):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, 32, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, nhead=4, dim_feedforward=128, batch_first=True, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=3, enable_nested_tensor=False)
        self.head = nn.Linear(d, classes)
        if freeze_embeddings:
            self.embed.weight.requires_grad_(False)  # pretrained vectors, kept fixed

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens) + self.pos)
        return self.head(h.mean(dim=1))


torch.manual_seed(0)
tokens = torch.randint(0, 5000, (256, 32))
labels = tokens[:, 0] % 4
model = TextClassifier(freeze_embeddings=FREEZE)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-4, weight_decay=0.01)
for epoch in range(4):
    for i in range(0, 256, 32):
        loss = nn.functional.cross_entropy(model(tokens[i:i + 32]), labels[i:i + 32])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
"""

TINY_PARAM = """import torch
from torch import nn


class ScaledCosine(nn.Module):
    # a cosine classifier with a learned temperature that starts tiny

    def __init__(self):
        super().__init__()
        self.feat = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 32))
        self.proto = nn.Parameter(torch.randn(5, 32))
        self.log_scale = nn.Parameter(torch.tensor(0.01))

    def forward(self, x):
        f = nn.functional.normalize(self.feat(x), dim=1)
        p = nn.functional.normalize(self.proto, dim=1)
        return (f @ p.t()) * torch.exp(self.log_scale) * 10


torch.manual_seed(0)
X = torch.randn(512, 10)
y = X[:, :5].argmax(dim=1)
model = ScaledCosine()
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
for epoch in range(8):
    for i in range(0, 512, 64):
        loss = nn.functional.cross_entropy(model(X[i:i + 64]), y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_adam_left_at_adadelta_learning_rate_is_gd305_at_the_step_line(run_script):
    ran = run_script({"train.py": ADAM})
    found = ran.only("GD305")
    assert (found.file, found.line) == ("train.py", line_of(ADAM, "optimizer.step()"))
    assert "Adam" in found.message and "lr=1" in found.message
    assert "1e-3" in found.hint
    notes = {r.line: r.note for r in found.related}
    assert "lr=1" in notes[line_of(ADAM, "optimizer = torch.optim.Adam(")]


def test_adam_at_its_usual_learning_rate_is_silent(run_script):
    ran = run_script({"train.py": ADAM.replace("optim.Adam(model.parameters(), lr=1.0)", "optim.Adam(model.parameters(), lr=1e-3)")})
    assert ran.serious() == [], [(f.code, f.line, f.message) for f in ran.serious()]


def test_adadelta_at_its_default_learning_rate_is_silent(run_script):
    ran = run_script({"train.py": ADAM.replace("optim.Adam(model.parameters(), lr=1.0)", "optim.Adadelta(model.parameters(), lr=1.0)")})
    assert "GD305" not in ran.codes()


def test_sigmoid_mlp_first_layers_are_gd304(run_script):
    ran = run_script({"train.py": SIGMOID})
    found = ran.only("GD304")
    assert (found.file, found.line) == ("train.py", line_of(SIGMOID, "loss.backward()"))
    assert found.subjects[0] == "model.net.0"
    assert "model.net.10" not in found.subjects  # the output layer learns


@pytest.mark.parametrize("name,program", [
    ("deep ReLU MLP", DEEP_RELU),
    ("residual LayerNorm MLP", RESIDUAL),
    ("transformer with a trained 5000-word embedding", TRANSFORMER.replace("FREEZE", "False")),
    ("transformer with frozen embeddings", TRANSFORMER.replace("FREEZE", "True")),
    ("SGD lr=0.5 with a tiny temperature parameter", TINY_PARAM),
])
def test_healthy_networks_are_silent(run_script, name, program):
    ran = run_script({"train.py": program})
    assert not {"GD304", "GD305"} & set(ran.codes()), name
    assert ran.serious() == [], [(f.code, f.line, f.message) for f in ran.serious()]
