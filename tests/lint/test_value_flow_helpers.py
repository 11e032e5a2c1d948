"""Value flow through helpers, methods of plain classes and attribute chains (second blind set).

`benchmarks/blind2/` was written before reading the lint code again; its misses were
general shapes, not one pattern per rule: a loss made a dozen steps inside a helper,
a re-wrap of `.item()`s held by a name, a loop that trains through a helper, a plain
class whose method computes the loss, a whole training step in one method, a
`zero_grad()` on another module, a parameter reached as `model.attr`, an evaluation
through a method under `no_grad`; and two misses of the first blind set (a `.tolist()`
re-wrapped inline as a leaf, outputs collected by a validation helper without `no_grad`).
Each firing program has a near miss of the same shape.
"""

from __future__ import annotations

import pytest

from tests.lint.test_value_flow import findings, line_of

DICE = """
def soft_dice(p, t):
    p, t = p.flatten(1), t.flatten(1)
    overlap = 2 * (p * t).sum(1) + 1
    return 1 - (overlap / (p.sum(1) + t.sum(1) + 1)).mean()

unet = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.GELU(), nn.Conv2d(4, 1, 1))
opt = torch.optim.AdamW(unet.parameters(), lr=3e-4)
for step, (img, seg) in enumerate(train_loader):
    out = unet(img)
    binary = {pred}
    dice = soft_dice(binary, seg)
    opt.zero_grad()
    dice.backward()
    opt.step()
"""

A2C = """
actor = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
critic = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 1))
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-2)
for episode in range(30):
    states = torch.randn(16, 4)
    values, logged = [], []
    for s in states:
        v = critic(s).squeeze(-1)
        logged.append(v.item())
        values.append({value})
    returns = torch.rand(16).flip(0).cumsum(0).flip(0)
    values = {collect}(values)
    advantage = returns - values
    critic_loss = advantage.pow(2).mean()
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()
"""

TRAIN_BATCH = """
model = nn.LSTM(8, 16, batch_first=True)
head = nn.Linear(16, 4)
optimizer = torch.optim.Adam([*model.parameters(), *head.parameters()], lr=1e-3)

def train_batch(x, y):
    optimizer.zero_grad()
    out, _ = model(x)
    loss = F.cross_entropy(head(out[:, -1]), y)
    loss.backward()
    optimizer.step()
    return {ret}

for epoch in range(3):
    epoch_loss = 0.0
    for _ in range(10):
        epoch_loss += {acc}
    print(epoch, epoch_loss / 10)
"""

DIFFUSION = """
class Diffusion:
    def __init__(self, model):
        self.model = model
        self.alphas = torch.linspace(0.99, 0.5, 50)

    def p_losses(self, x0):
        t = torch.randint(0, 50, (x0.size(0),))
        noise = torch.randn_like(x0)
        x_t = self.alphas[t].unsqueeze(-1) * x0 + noise
{predict}
        return F.mse_loss(predicted, noise)

    @torch.no_grad()
    def sample(self, n):
        return self.model(torch.randn(n, 2))

model = nn.Sequential(nn.Linear(2, 64), nn.SiLU(), nn.Linear(64, 2))
diffusion = Diffusion(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for x0 in loader:
    loss = diffusion.p_losses(x0)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(diffusion.sample(16))
"""

TEMPERATURE = """
classifier = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 4))
calib_x, calib_y = torch.randn(100, 6), torch.randint(0, 4, (100,))
with torch.no_grad():
    calib_logits = classifier(calib_x)
scale = torch.full((1,), 1.5, requires_grad=True)
lbfgs = torch.optim.LBFGS([scale], lr=0.05)
for it in range(10):
    nll = F.cross_entropy(calib_logits / scale, calib_y)
    lbfgs.zero_grad()
    nll.backward()
    lbfgs.step(lambda: nll)
"""

VAE_STEP = """
class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(self, x):
        loss = F.mse_loss(self.model(x), x)
        self.optimizer.zero_grad()
{body}
        return loss.item()

trainer = Trainer(nn.Sequential(nn.Linear(32, 8), nn.ReLU(), nn.Linear(8, 32)))
for x in loader:
    trainer.step(x)
"""
CLIP = "        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)"
BACKWARD = "        loss.backward()"
STEP = "        self.optimizer.step()"

MICRO_STEP = """
def micro_step(model, x, y):
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    F.mse_loss(model(x), y).backward()
"""

DISTILL = """
class Pair(nn.Module):
    def __init__(self, student, teacher):
        super().__init__()
        self.student, self.teacher = student, teacher

teacher = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 5))
student = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5))
pair = Pair(student, teacher)
optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
for x, y in loader:
    with torch.no_grad():
        t_logits = teacher(x)
    s_logits = student(x)
    loss = F.kl_div(F.log_softmax(s_logits, -1), F.softmax(t_logits, -1), reduction="batchmean")
    {clear}.zero_grad()
    loss.backward()
    optimizer.step()
"""

PROTOTYPES = """
class ProtoNet(nn.Module):
    def __init__(self, d=16, classes=5, emb=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, emb))
        self.prototypes = nn.Parameter(F.normalize(torch.randn(classes, emb), dim=1){frozen})

    def forward(self, x):
        return F.normalize(self.encoder(x), dim=1) @ self.prototypes.t() * 10.0

model = ProtoNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for x, y in loader:
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
{renorm}
"""
RENORM = "    model.prototypes.div_(model.prototypes.norm(dim=1, keepdim=True))"

LIT = """
class SpeechCommands(nn.Module):
    def __init__(self, n_mels=20, labels=6):
        super().__init__()
        self.features = nn.Sequential(nn.Conv1d(n_mels, 32, 5), nn.BatchNorm1d(32), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(32, labels))

    def forward(self, mel):
        return self.head(self.features(mel))

    def shared_loss(self, batch):
        mel, label = batch
        return F.cross_entropy(self(mel), label)

    def accuracy(self, batch):
        mel, label = batch
        return (self.forward(mel).argmax(1) == label).float().mean()

    def make_optimizer(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

net = SpeechCommands()
opt = net.make_optimizer()
for epoch in range(5):
    for batch in train_loader:
        loss = net.shared_loss(batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
{eval}
    with torch.inference_mode():
        scores = [net.accuracy(batch).item() for batch in val_loader]
"""

BOOTSTRAP = """
class QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 2))

    def forward(self, x):
        return self.net(x)

q_net = QNet()
optimizer = torch.optim.Adam(q_net.parameters(), lr=1e-3)
for s, a, r, s2 in replay:
    with torch.no_grad():
        target = r + 0.99 * q_net(s2).max(dim=1).values
    q = q_net(s).gather(1, a.unsqueeze(1)).squeeze(1)
    loss = F.smooth_l1_loss(q, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

TEST_ONLY = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4)

    def forward(self, x):
        return self.bn(x)

def test_forward_under_no_grad():
    model = Net()
    print(sum(p.numel() for p in model.parameters()))
    with torch.no_grad():
        out = model(torch.randn(2, 4))
    assert out.shape == (2, 4)
"""

REINFORCE = """
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(20):
    log_probs = []
    for obs in torch.randn(8, 4):
        dist = torch.distributions.Categorical(logits=policy(obs))
        log_probs.append(dist.log_prob(dist.sample()))
    returns = torch.linspace(1.0, 0.1, 8)
    lp = torch.stack(log_probs).tolist()
    loss = -({weighted}).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

VALIDATE = """
model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=5e-3)

{decorator}
def {name}(model, X, y, bs=20):
    {mode}
    preds = []
    for i in range(0, len(X), bs):
        preds.append(model(X[i:i + bs]))
    return ((torch.cat(preds) - y) ** 2).mean().item()

for epoch in range(6):
    for xb, yb in train_loader:
        loss = F.mse_loss(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, {name}(model, X_va, y_va))
"""

FIRING = {
    "comparison-cut-a-dozen-steps-inside-a-helper-loss": (
        DICE.format(pred="(out.sigmoid() > 0.5).float()"), "GD102", "binary = "),
    "item-list-rewrapped-behind-a-name-in-arithmetic": (
        A2C.format(value="critic(s).item()", collect="torch.tensor"), "GD101", "values.append("),
    "loop-that-trains-through-a-helper-sums-its-loss": (
        TRAIN_BATCH.format(ret="loss", acc="train_batch(x, y)"), "GD207", "epoch_loss += "),
    "no-grad-in-a-plain-class-method-returning-the-loss": (
        DIFFUSION.format(predict="        with torch.no_grad():\n            predicted = self.model(x_t)"),
        "GD110", "        with torch.no_grad():"),
    "clip-before-backward-in-a-whole-step-method": (
        VAE_STEP.format(body="\n".join([CLIP, BACKWARD, STEP])), "GD206", "clip_grad_norm_"),
    "zero-grad-on-the-teacher-while-the-student-steps": (
        DISTILL.format(clear="teacher"), "GD201", "optimizer.step()"),
    "instance-parameter-renormalised-outside-no-grad": (
        PROTOTYPES.format(frozen="", renorm=RENORM), "GD109", "model.prototypes.div_"),
    "validation-method-under-no-grad-never-in-eval": (LIT.format(eval=""), "GD211", "scores = "),
    "tolist-rewrapped-inline-as-a-leaf-that-no-optimizer-holds": (
        REINFORCE.format(weighted="torch.tensor(lp, requires_grad=True) * returns"), "GD101", "lp = "),
    "validation-helper-collects-outputs-without-no-grad": (
        VALIDATE.format(decorator="", name="validate", mode="model.eval()"), "GD207", "preds.append("),
}

NEAR_MISSES = {
    "dice-on-probabilities-threshold-for-metric": DICE.format(pred="out.sigmoid()"),
    "values-kept-as-tensors-items-only-logged": A2C.format(value="v", collect="torch.stack"),
    "helper-returns-the-loss-as-a-number": TRAIN_BATCH.format(ret="loss.item()", acc="train_batch(x, y)"),
    "helper-loss-accumulated-with-item": TRAIN_BATCH.format(ret="loss", acc="train_batch(x, y).item()"),
    "plain-class-no-grad-only-in-sampling": DIFFUSION.format(predict="        predicted = self.model(x_t)"),
    "temperature-leaf-fitted-on-no-grad-logits": TEMPERATURE,
    "clip-between-backward-and-step-in-a-method": VAE_STEP.format(body="\n".join([BACKWARD, CLIP, STEP])),
    "micro-step-clips-before-backward-without-step": MICRO_STEP,
    "zero-grad-on-the-student-module": DISTILL.format(clear="student"),
    "zero-grad-on-a-wrapper-of-both": DISTILL.format(clear="pair"),
    "instance-parameter-renormalised-under-no-grad": PROTOTYPES.format(
        frozen="", renorm="    with torch.no_grad():\n    " + RENORM),
    "instance-parameter-frozen": PROTOTYPES.format(frozen=", requires_grad=False", renorm=RENORM),
    "validation-method-after-eval": LIT.format(eval="    net.eval()"),
    "bootstrap-target-from-the-same-model-under-no-grad": BOOTSTRAP,
    "test-runs-a-model-under-no-grad-without-training": TEST_ONLY,
    "inline-leaf-weights-times-log-probs-with-graph": REINFORCE.format(
        weighted="torch.tensor(returns.tolist(), requires_grad=True) * torch.stack(log_probs)"),
    "validation-helper-under-no-grad": VALIDATE.format(
        decorator="@torch.no_grad()", name="validate", mode="model.eval()"),
    "chunked-forward-helper-whose-outputs-are-trained": """
        model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 1))
        opt = torch.optim.Adam(model.parameters(), lr=5e-3)

        def forward_chunks(model, X, bs=20):
            outs = []
            for i in range(0, len(X), bs):
                outs.append(model(X[i:i + bs]))
            return torch.cat(outs)

        for xb, yb in train_loader:
            loss = F.mse_loss(forward_chunks(model, xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    """,
}


@pytest.mark.parametrize("name", sorted(FIRING) + sorted(NEAR_MISSES))
def test_flow_through_helpers(name):
    """Firing programs are found at their line; near misses give no error or warning at all."""
    if name in NEAR_MISSES:
        assert findings(NEAR_MISSES[name]) == set()
    else:
        body, code, marker = FIRING[name]
        assert (code, line_of(body, marker)) in findings(body)
