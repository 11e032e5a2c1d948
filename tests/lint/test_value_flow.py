"""Value flow by meaning (issue 32): what ends the graph is found whatever lies in between.

Each program is realistic training code in the shapes of the blind set
(`benchmarks/blind/`): a cut or grad-mode switch reached through chained
methods, module-instance losses, tuple and dict unpacking, methods of the
file's own classes and helper parameters. Each firing program has a near miss
of the same shape that must stay silent under every code.
"""

from __future__ import annotations

import textwrap

import pytest

from graddoctor.finding import Severity
from graddoctor.lint import lint_source

HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
"""


def findings(body: str) -> set[tuple[str, int]]:
    source = HEADER + textwrap.dedent(body)
    return {(f.code, f.line) for f in lint_source(source, "train.py").findings if f.severity >= Severity.WARNING}


def line_of(body: str, text: str) -> int:
    lines = (HEADER + textwrap.dedent(body)).splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


ARGMAX_CHAIN = """
model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 4))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
X_train, y_train = torch.randn(64, 2), torch.randint(0, 4, (64,))
for epoch in range(10):
    train_logits = model(X_train)
    train_preds = torch.softmax(train_logits, dim=1).argmax(dim=1).type(torch.float32)
    loss = loss_fn({pred}, y_train.type(torch.float32))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(epoch, loss.item(), (train_preds == y_train).float().mean().item())
"""

NO_GRAD_CONTAINER = """
class Trainer:
    def __init__(self, model):
        self.model = model
        self.model_optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def compute_losses(self, inputs, outputs):
        losses = {{}}
        losses["loss"] = (outputs["disp"] - inputs["depth"]).abs().mean()
        return losses

    def process_batch(self, inputs):
        outputs = {{"disp": self.model(inputs["color"])}}
        return outputs, self.compute_losses(inputs, outputs)

    def run_epoch(self, batches):
        for inputs in batches:
{train}
            self.model_optimizer.zero_grad()
            losses["loss"].backward()
            self.model_optimizer.step()

    def val(self, inputs):
        with torch.no_grad():
            outputs, losses = self.process_batch(inputs)
        return losses["loss"].item()
"""

SHARED_STEP = """
class LitClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.GELU(), nn.Linear(32, 3))

    {decorator_shared}
    def shared_step(self, batch):
        x, y = batch
        logits = self.net(x)
        return F.cross_entropy(logits, y), (logits.argmax(-1) == y).float().mean()

    def training_step(self, batch):
        loss, acc = self.shared_step(batch)
        return {{"loss": loss, "acc": acc}}

    {decorator_predict}
    def predict_step(self, batch):
        return self.net(batch[0]).softmax(-1)


model = LitClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for batch in loader:
    out = model.training_step(batch)
    opt.zero_grad()
    out["loss"].backward()
    opt.step()
"""

BYOL = """
class BYOL(nn.Module):
    def __init__(self):
        super().__init__()
        self.online = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 16))
        self.predictor = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16))
        self.target = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 16))

    def loss_fn(self, p, z):
        return (2 - 2 * (F.normalize(p, dim=-1) * F.normalize(z, dim=-1)).sum(dim=-1)).mean()

    def forward(self, v1, v2):
        p1, p2 = self.predictor(self.online(torch.cat([v1, v2]))){detach}.chunk(2)
        with torch.no_grad():
            z1, z2 = self.target(v1), self.target(v2)
        return self.loss_fn(p1, z2) + self.loss_fn(p2, z1)


model = BYOL()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for x in loader:
    loss = model(x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

LISTWISE = """
def listwise_loss(scores, relevance):
    return -(torch.softmax(relevance, 0) * torch.log_softmax(scores, 0)).sum()


model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for items, relevance in queries:
    scores = {wrap}([model(item).squeeze(-1) for item in items])
    loss = listwise_loss(scores, relevance)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

TOKEN_LOSS = """
model = nn.Sequential(nn.Embedding(30, 16), nn.Linear(16, 30))
loss_fct = nn.CrossEntropyLoss(reduction="none")
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for ids, mask in loader:
    logits = model(ids[:, :-1])
    token_loss = loss_fct(logits.reshape(-1, 30), ids[:, 1:].reshape(-1))
    token_loss = token_loss * mask[:, 1:].reshape(-1).float()
{reduce}
    optimizer.zero_grad()
    token_loss.backward()
    optimizer.step()
"""

INFO_NCE = """
def info_nce(z1, z2, temperature=0.2):
    logits = F.normalize(z1, dim=1) @ F.normalize(z2, dim=1).t() / temperature
    labels = torch.arange(z1.size(0))
    loss_12 = F.cross_entropy(logits, labels, reduction="none")
    loss_21 = F.cross_entropy(logits.t(), labels, reduction="none")
    return {{"loss": {total}, "acc": (logits.argmax(1) == labels).float().mean()}}


model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 16))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for x in loader:
    out = info_nce(model(x + 0.1 * torch.randn_like(x)), model(x + 0.1 * torch.randn_like(x)))
    optimizer.zero_grad()
    out["loss"].backward()
    optimizer.step()
"""

ACCUMULATION = """
model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
criterion = nn.SmoothL1Loss()
for i, (xb, yb) in enumerate(loader):
    loss = criterion(model(xb), yb) / 4
    loss.backward()
    if {condition}:
        model.zero_grad()
{after}
"""

FIRING = {
    "argmax-chain-into-module-loss": (ARGMAX_CHAIN.format(pred="train_preds"), "GD102", ".argmax(dim=1).type("),
    "no-grad-tuple-then-dict-item": (
        NO_GRAD_CONTAINER.format(train="            with torch.no_grad():\n"
                                       "                outputs, losses = self.process_batch(inputs)"),
        "GD110", "            with torch.no_grad():"),
    "inference-mode-helper-behind-method-dict": (
        SHARED_STEP.format(decorator_shared="@torch.inference_mode()", decorator_predict=""), "GD110",
        "@torch.inference_mode()"),
    "detach-then-chunk-in-loss-returning-forward": (BYOL.format(detach=".detach()"), "GD102", ".detach().chunk(2)"),
    "rewrap-passed-into-helper-parameter": (LISTWISE.format(wrap="torch.tensor"), "GD102", "torch.tensor(["),
    "per-sample-loss-reassigned-masked": (TOKEN_LOSS.format(reduce=""), "GD103", "token_loss.backward()"),
    "per-sample-loss-in-helper-dict": (INFO_NCE.format(total="(loss_12 + loss_21) / 2"), "GD103", 'out["loss"].backward()'),
    "model-zero-grad-at-accumulation-boundary": (
        ACCUMULATION.format(condition="(i + 1) % 4 == 0", after="        optimizer.step()"), "GD202", "model.zero_grad()"),
}

NEAR_MISSES = {
    "argmax-chain-only-for-accuracy": ARGMAX_CHAIN.format(pred="train_logits").replace("nn.MSELoss()", "nn.CrossEntropyLoss()")
    .replace("y_train.type(torch.float32)", "y_train"),
    "no-grad-tuple-only-in-validation": NO_GRAD_CONTAINER.format(
        train="            outputs, losses = self.process_batch(inputs)"),
    "inference-mode-on-predict-only": SHARED_STEP.format(decorator_shared="", decorator_predict="@torch.inference_mode()"),
    "chunk-without-detach-target-under-no-grad": BYOL.format(detach=""),
    "stacked-scores-into-helper-parameter": LISTWISE.format(wrap="torch.stack"),
    "per-sample-loss-masked-mean": TOKEN_LOSS.format(
        reduce="    token_loss = token_loss.sum() / mask[:, 1:].sum()"),
    "per-sample-loss-averaged-in-helper-dict": INFO_NCE.format(total="(loss_12 + loss_21).mean() / 2"),
    "zero-grad-in-non-finite-guard": ACCUMULATION.format(
        condition="not torch.isfinite(loss)", after="    optimizer.step()\n    optimizer.zero_grad()"),
    "dqn-targets-under-no-grad-through-dict": """
        q_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
        target_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
        optimizer = torch.optim.Adam(q_net.parameters(), lr=1e-3)

        def compute_targets(batch):
            next_q = target_net(batch["s2"]).max(dim=1).values
            return {"y": batch["r"] + 0.99 * (1 - batch["done"]) * next_q}

        for batch in replay:
            with torch.no_grad():
                targets = compute_targets(batch)
            q = q_net(batch["s"]).gather(1, batch["a"].unsqueeze(1)).squeeze(1)
            losses = {"td": F.smooth_l1_loss(q, targets["y"])}
            optimizer.zero_grad()
            losses["td"].backward()
            optimizer.step()
    """,
    "gan-discriminator-on-fake-made-under-no-grad": """
        class Discriminator(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

            def forward(self, x):
                return self.net(x)

        G = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
        D = Discriminator()
        opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
        bce = nn.BCEWithLogitsLoss()
        for real in loader:
            with torch.no_grad():
                fake = G(torch.randn(real.size(0), 8))
            out = {"fake": D(fake), "real": D(real)}
            d_loss = bce(out["fake"], torch.zeros_like(out["fake"])) + bce(out["real"], torch.ones_like(out["real"]))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
    """,
}


@pytest.mark.parametrize("name", sorted(FIRING))
def test_cut_found_through_the_value_flow(name):
    body, code, marker = FIRING[name]
    assert (code, line_of(body, marker)) in findings(body)


@pytest.mark.parametrize("name", sorted(NEAR_MISSES))
def test_near_miss_is_silent(name):
    assert findings(NEAR_MISSES[name]) == set()
