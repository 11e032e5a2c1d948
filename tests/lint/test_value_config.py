"""Values the file fixes, and module objects counted through names (issue 32, the fifth blind set's misses).

Each program is modelled on a shape of real reports: a focal loss whose
`reduction` defaults to "none" (kornia's does), configured through a
constructor default, a dataclass field or a dict of settings and called as
`self.criterion(...)` or returned by the model's forward; a caption model whose
encoder runs under `no_grad` inside a method `forward` calls, a probe whose
backbone runs through a `no_grad` helper, a backbone parameter group whose only
run is under `no_grad`, while the optimizer is given that part; one head put
under every task with `dict.fromkeys`, one block registered n times with
`setattr` or appended in a loop, one conv listed twice in a Sequential, a layout
string indexing a registry of blocks, stages a helper builds kept in a plain
list; a one-output head whose width is a config field against a
one-dimensional target; probabilities returned when a config flag says so; a
Dice loss module that detaches its input; a logger method that keeps the loss
it is given. Constants are followed through names, parameters every call
agrees on, constructor arguments, dataclass defaults and `__init__`
assignments (`lint/analysis/constants.py`), and a `return` that a known
condition rules out is not followed. Each firing program has near misses of
the same shape that must stay silent under every code.
"""

from __future__ import annotations

import pytest

from tests.lint.test_value_flow import findings, line_of

FOCAL = """
class FocalLoss(nn.Module):
    def __init__(self, alpha=0.25, gamma=2.0, reduction={default!r}):
        super().__init__()
        self.alpha, self.gamma = alpha, gamma
        self.reduction = reduction

    def forward(self, logits, target):
        ce = F.cross_entropy(logits, target, reduction="none")
        p_t = torch.exp(-ce)
        loss = self.alpha * (1 - p_t) ** self.gamma * ce
        if self.reduction == "mean":
            return loss.mean()
        elif self.reduction == "sum":
            return loss.sum()
        return loss


model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5))
criterion = FocalLoss({given})
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(20):
    x, y = torch.randn(64, 16), torch.randint(0, 5, (64,))
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss{reduce}.backward()
    optimizer.step()
"""

SETTINGS = """
settings = {{"lr": 1e-3, "epochs": 2, "reduction": {reduction!r}}}


class Trainer:
    def __init__(self, model, lr, reduction="mean"):
        self.model = model
        self.criterion = nn.BCEWithLogitsLoss(reduction=reduction)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)

    def train_step(self, x, y):
        logits = self.model(x).squeeze(-1)
        loss = self.criterion(logits, y){reduce}
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = Trainer(nn.Sequential(nn.Linear(10, 1)), settings["lr"], reduction=settings["reduction"])
for epoch in range(settings["epochs"]):
    for _ in range(10):
        trainer.train_step(torch.randn(32, 10), torch.randint(0, 2, (32,)).float())
"""

CAPTION = """
class Encoder(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.proj = nn.Linear(64, d)

    def forward(self, images):
        return self.proj(self.conv(images).flatten(1))


class Captioner(nn.Module):
    def __init__(self, vocab=50, d=32):
        super().__init__()
        self.encoder = Encoder(d)
        self.embed = nn.Embedding(vocab, d)
        self.decoder = nn.GRU(d, d, batch_first=True)
        self.out = nn.Linear(d, vocab)

    def encode(self, images):
        with torch.no_grad():
            feats = self.encoder(images)
        return feats.unsqueeze(0)

    def forward(self, images, tokens):
        h0 = self.encode(images)
        hidden, _ = self.decoder(self.embed(tokens), h0)
        return self.out(hidden)


model = Captioner()
optimizer = torch.optim.Adam({params}, lr=1e-3)
for step in range(10):
    images, tokens = torch.randn(8, 3, 8, 8), torch.randint(0, 50, (8, 12))
    logits = model(images, tokens[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 50), tokens[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

MULTITASK = """
TASKS = ("sentiment", "topic", "toxicity")


class MultiTask(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(300, d), nn.ReLU())
        self.heads = nn.ModuleDict({heads})

    def forward(self, x, task):
        return self.heads[task](self.trunk(x))


model = MultiTask()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(30):
    task = TASKS[step % 3]
    x, y = torch.randn(16, 300), torch.randint(0, 2, (16,))
    loss = F.cross_entropy(model(x, task), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

RESNET = """
import copy


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.GELU())

    def forward(self, x):
        return x + self.body(x)


class ResNetLite(nn.Module):
    def __init__(self, c=16, depth=4):
        super().__init__()
        self.depth = depth
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        block = ResBlock(c)
        for i in range(depth):
            setattr(self, f"block{{i}}", {entry})
        self.fc = nn.Linear(c, 10)

    def forward(self, x):
        h = self.stem(x)
        for i in range(self.depth):
            h = getattr(self, f"block{{i}}")(h)
        return self.fc(h.mean((2, 3)))


model = ResNetLite()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    x, y = torch.randn(4, 3, 8, 8), torch.randint(0, 10, (4,))
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

DOUBLE_CONV = """
class DoubleConv(nn.Module):
    def __init__(self, c):
        super().__init__()
        {first} = nn.Conv2d(c, c, 3, padding=1)
        act = nn.ReLU()
        self.body = nn.Sequential({first}, nn.BatchNorm2d(c), act, {second}, nn.BatchNorm2d(c), act)

    def forward(self, x):
        return self.body(x)


model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), DoubleConv(8), nn.Flatten(), nn.Linear(8 * 8 * 8, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(5):
    x, y = torch.randn(4, 1, 8, 8), torch.randint(0, 2, (4,))
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

REGRESSOR = """
from dataclasses import dataclass


@dataclass
class HeadConfig:
    hidden: int = 32
    n_outputs: int = 1


class Regressor(nn.Module):
    def __init__(self, cfg: HeadConfig):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, cfg.hidden), nn.ReLU())
        self.head = nn.Linear(cfg.hidden, cfg.n_outputs)

    def forward(self, x):
        return self.head(self.body(x))


model = Regressor(HeadConfig())
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(256, 8)
y = x.sum(dim=1)
for epoch in range(20):
    pred = model(x)
    loss = F.mse_loss(pred, {target})
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

LAYOUT = """
def conv_block(c):
    return nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())


class LayoutCNN(nn.Module):
    def __init__(self, c=8, layout="{layout}"):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        blocks = {{"c": conv_block(c), "p": nn.MaxPool2d(2)}}
        layers = []
        for kind in layout:
            layers.append({entry})
        self.body = nn.Sequential(*layers)
        self.fc = nn.Linear(c, 10)

    def forward(self, x):
        return self.fc(self.body(self.stem(x)).mean((2, 3)))


model = LayoutCNN()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    x, y = torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

TIED = """
def build_tied_pair(d):
    layer = nn.Linear(d, d)
    return nn.Sequential(layer, nn.Tanh(), layer)


model = nn.Sequential(nn.Linear(4, 16), build_tied_pair(16), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(5):
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    loss = F.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

PROBS = """
from dataclasses import dataclass


@dataclass
class ModelConfig:
    d_in: int = 20
    n_classes: int = 4
    return_probs: bool = {flag}


class Classifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.net = nn.Sequential(nn.Linear(cfg.d_in, 64), nn.ReLU(), nn.Linear(64, cfg.n_classes))

    def forward(self, x):
        logits = self.net(x)
        if self.cfg.return_probs:
            return F.softmax(logits, dim=-1)
        return logits


model = Classifier(ModelConfig({given}))
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(10):
    x, y = torch.randn(32, 20), torch.randint(0, 4, (32,))
    loss = criterion(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

DICE = """
class DiceLoss(nn.Module):
    def __init__(self, smooth=1.0):
        super().__init__()
        self.smooth = smooth

    def forward(self, logits, target):
        probs = {probs}
        inter = (probs * target).sum()
        return 1 - (2 * inter + self.smooth) / (probs.sum() + target.sum() + self.smooth)


class Segmenter(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 1))
        self.criterion = DiceLoss()

    def forward(self, x):
        return self.net(x)


model = Segmenter()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(10):
    x = torch.randn(4, 1, 16, 16)
    y = (torch.rand(4, 1, 16, 16) > 0.5).float()
    loss = model.criterion(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

PROBE = """
def extract(backbone, x):
    with torch.no_grad():
        return backbone(x)


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64))
        self.head = nn.Linear(64, 3)

    def forward(self, x):
        feats = extract(self.backbone, x)
        return self.head(feats)


model = Probe()
opt = torch.optim.SGD({params}, lr=0.1)
for step in range(10):
    x, y = torch.randn(16, 32), torch.randint(0, 3, (16,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

MODEL_LOSS = """
class Regressor(nn.Module):
    def __init__(self, reduction="none"):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
        self.loss_fn = nn.SmoothL1Loss(reduction=reduction)

    def forward(self, x, y):
        pred = self.net(x).squeeze(-1)
        return self.loss_fn(pred, y)


model = Regressor({given})
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(10):
    x, y = torch.randn(32, 8), torch.randn(32)
    loss = model(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

DISTILL = """
class DistillLoss(nn.Module):
    def __init__(self, temperature=4.0):
        super().__init__()
        self.t = temperature

    def forward(self, student_logits, teacher_logits):
        log_p = F.log_softmax(student_logits / self.t, dim=-1)
        q = F.softmax(teacher_logits / self.t, dim=-1)
        return F.kl_div(log_p, q, reduction="batchmean") * self.t ** 2


teacher = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)).eval()
student = nn.Sequential(nn.Linear(20, 8), nn.ReLU(), nn.Linear(8, 5))
criterion = DistillLoss()
opt = torch.optim.Adam(student.parameters(), lr=1e-3)
for step in range(10):
    x = torch.randn(32, 20)
    with torch.no_grad():
        t_logits = teacher(x)
    loss = criterion(student(x), t_logits)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

PYRAMID = """
def make_block(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.BatchNorm2d(c_out), nn.ReLU())


class Pyramid(nn.Module):
    def __init__(self, channels=(3, 8, 16, 32)):
        super().__init__()
        self.stages = {stages}
        self.fc = nn.Linear(channels[-1], 10)

    def forward(self, x):
        for stage in self.stages:
            x = F.max_pool2d(stage(x), 2)
        return self.fc(x.mean((2, 3)))


model = Pyramid()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    x, y = torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

LOGGER = """
from collections import defaultdict


class Logger:
    def __init__(self):
        self.values = defaultdict(list)

    def log(self, name, value):
        self.values[name].append(value)


model = nn.Linear(10, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
logger = Logger()
for step in range(100):
    x, y = torch.randn(16, 10), torch.randn(16, 1)
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    logger.log("loss", {logged})
"""

GROUPS = """
backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
head = nn.Linear(16, 10)
optimizer = torch.optim.SGD([{groups}], momentum=0.9)
for step in range(10):
    x, y = torch.randn(8, 3, 16, 16), torch.randint(0, 10, (8,))
    with torch.no_grad():
        feats = backbone(x)
    logits = head(feats)
    loss = F.cross_entropy(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
{later}"""
BOTH_GROUPS = '{"params": backbone.parameters(), "lr": 1e-4}, {"params": head.parameters(), "lr": 1e-2}'
FINE_TUNE = """for step in range(10):
    x, y = torch.randn(8, 3, 16, 16), torch.randint(0, 10, (8,))
    loss = F.cross_entropy(head(backbone(x)), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

FIRING = {
    "focal-loss-whose-reduction-defaults-to-none": (
        FOCAL.format(default="none", given="alpha=0.5", reduce=""), "GD103", "loss.backward()"),
    "bce-reduction-from-a-settings-dict-through-the-trainer": (
        SETTINGS.format(reduction="none", reduce=""), "GD103", "loss.backward()"),
    "encoder-under-no-grad-in-a-method-forward-calls-optimizer-whole": (
        CAPTION.format(params="model.parameters()"), "GD110", "with torch.no_grad():"),
    "encoder-under-no-grad-in-a-method-forward-calls-optimizer-groups": (
        CAPTION.format(params="list(model.encoder.parameters()) + list(model.decoder.parameters())"),
        "GD110", "with torch.no_grad():"),
    "one-head-under-every-task-with-dict-fromkeys": (
        MULTITASK.format(heads="dict.fromkeys(TASKS, nn.Linear(d, 2))"), "GD502", "dict.fromkeys"),
    "one-block-registered-n-times-with-setattr": (RESNET.format(entry="block"), "GD502", "setattr(self"),
    "one-conv-listed-twice-in-a-sequential": (
        DOUBLE_CONV.format(first="conv", second="conv"), "GD502", "self.body = nn.Sequential"),
    "one-output-head-width-from-a-dataclass-against-a-vector": (
        REGRESSOR.format(target="y"), "GD503", "loss = F.mse_loss"),
    "probabilities-returned-when-the-config-says-so": (
        PROBS.format(flag=True, given=""), "GD501", "return F.softmax"),
    "dice-loss-module-detaches-its-input": (
        DICE.format(probs="torch.sigmoid(logits).detach()"), "GD102", "probs = torch.sigmoid"),
    "backbone-run-by-a-no-grad-helper-in-forward": (PROBE.format(params="model.parameters()"), "GD110", "with torch.no_grad():"),
    "model-returns-a-loss-whose-reduction-defaults-to-none": (
        MODEL_LOSS.format(given=""), "GD103", "loss.backward()"),
    "stages-built-by-a-helper-kept-in-a-plain-list": (
        PYRAMID.format(stages="[make_block(a, b) for a, b in zip(channels[:-1], channels[1:])]"),
        "GD105", "self.stages = ["),
    # Not read any more: "a logger method keeps the loss it is given" (LOGGER with logged="loss") put the finding
    # in the method, while the runtime finding and its verified edit stand at the call that passes the loss; two
    # findings of one bug at two lines made `fix --verify` pick the one whose edit cannot verify.
    "shallow-copies-of-one-block-set-with-setattr": (RESNET.format(entry="copy.copy(block)"), "GD502", "setattr(self"),
    "backbone-group-in-the-optimizer-run-only-under-no-grad": (
        GROUPS.format(groups=BOTH_GROUPS, later=""), "GD110", "with torch.no_grad():"),
    "layout-string-indexes-a-registry-in-a-loop": (
        LAYOUT.format(layout="ccpccp", entry="blocks[kind]"), "GD502", "layers.append(blocks[kind])"),
}

NEAR_MISSES = {
    "focal-loss-given-mean": FOCAL.format(default="none", given="reduction='mean'", reduce=""),
    "focal-loss-defaulting-to-mean": FOCAL.format(default="mean", given="", reduce=""),
    "focal-loss-none-reduced-before-backward": FOCAL.format(default="none", given="", reduce=".mean()"),
    "bce-reduction-mean-from-the-settings": SETTINGS.format(reduction="mean", reduce=""),
    "bce-reduction-none-averaged-in-the-step": SETTINGS.format(reduction="none", reduce=".mean()"),
    "encoder-under-no-grad-left-out-of-the-optimizer": CAPTION.format(
        params="list(model.embed.parameters()) + list(model.decoder.parameters()) + list(model.out.parameters())"),
    "a-new-head-per-task-in-a-dict-comprehension": MULTITASK.format(heads="{t: nn.Linear(d, 2) for t in TASKS}"),
    "a-new-block-registered-per-pass-with-setattr": RESNET.format(entry="ResBlock(16)"),
    "deep-copies-of-one-block-set-with-setattr": RESNET.format(entry="copy.deepcopy(block)"),
    "two-convs-one-shared-activation": DOUBLE_CONV.format(first="conv", second="nn.Conv2d(c, c, 3, padding=1)"),
    "a-conv-tied-on-purpose": DOUBLE_CONV.format(first="shared_conv", second="shared_conv"),
    "a-layer-listed-twice-by-a-function-named-for-tying": TIED,
    "distillation-loss-module-given-no-grad-teacher-logits": DISTILL,
    "only-the-head-group-in-the-optimizer": GROUPS.format(groups='{"params": head.parameters(), "lr": 1e-2}', later=""),
    "backbone-fine-tuned-with-recording-in-a-second-phase": GROUPS.format(groups=BOTH_GROUPS, later=FINE_TUNE),
    "stages-built-by-a-helper-in-a-module-list": PYRAMID.format(
        stages="nn.ModuleList(make_block(a, b) for a, b in zip(channels[:-1], channels[1:]))"),
    "a-logger-method-given-the-loss-as-a-number": LOGGER.format(logged="loss.item()"),
    "a-logger-method-given-the-loss-detached": LOGGER.format(logged="loss.detach()"),
    "logits-returned-when-the-config-says-so": PROBS.format(flag=False, given=""),
    "probabilities-default-overridden-by-the-construction": PROBS.format(flag=True, given="return_probs=False"),
    "dice-loss-module-keeps-the-graph": DICE.format(probs="torch.sigmoid(logits)"),
    "backbone-run-by-a-no-grad-helper-left-out-of-the-optimizer": PROBE.format(params="model.head.parameters()"),
    "model-returns-a-loss-reduced-by-the-construction": MODEL_LOSS.format(given='reduction="mean"'),
    "one-output-head-against-a-column": REGRESSOR.format(target="y.unsqueeze(1)"),
    "layout-without-a-repeated-block": LAYOUT.format(layout="cp", entry="blocks[kind]"),
    "layout-building-a-new-block-per-letter": LAYOUT.format(
        layout="ccpccp", entry='conv_block(c) if kind == "c" else nn.MaxPool2d(2)'),
}


@pytest.mark.parametrize("name", sorted(FIRING) + sorted(NEAR_MISSES))
def test_values_and_module_objects(name):
    """Firing programs are found at their line; near misses give no error or warning at all."""
    if name in NEAR_MISSES:
        assert findings(NEAR_MISSES[name]) == set()
    else:
        body, code, marker = FIRING[name]
        assert (code, line_of(body, marker)) in findings(body)


CONVERT = """
def to_plain_linear(model):
    for name, module in model.named_children():
        if isinstance(module, nn.Bilinear):
            new_module = nn.Linear(module.in1_features, module.out_features)
            new_module.weight.copy_(module.weight[:, :, 0])
            setattr(model, name, new_module)
        else:
            to_plain_linear(module)


net = nn.Sequential(nn.Bilinear(4, 4, 2))
with torch.no_grad():
    to_plain_linear(net)
"""


def test_recursive_call_is_no_way_in_with_gradients_on():
    """A converter that edits new layers' weights in place and recurses into children is run by its
    caller under no_grad: its own recursive call does not make it reached with gradients on (GD109)."""
    assert findings(CONVERT) == set()
    assert ("GD109", line_of(CONVERT, "new_module.weight.copy_")) in findings(CONVERT.replace("with torch.no_grad():\n    ", ""))


TWO_CRITERIA = """
class PerTokenLoss(nn.Module):
    def forward(self, logits, target):
        return F.cross_entropy(logits, target, reduction="none")


model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


def train_plain(x, y):
    criterion = nn.CrossEntropyLoss()
    loss = criterion(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


def train_weighted(x, y, w):
    criterion = PerTokenLoss()
    loss = (criterion(model(x), y) * w).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()


for step in range(5):
    x, y = torch.randn(16, 8), torch.randint(0, 4, (16,))
    train_plain(x, y)
    train_weighted(x, y, torch.rand(16))
"""


def test_a_name_bound_to_two_loss_modules_is_not_followed_into_either():
    """`criterion` is a library loss in one function and a per-sample loss module of the file in another:
    which forward a call runs is unsure, so neither call is followed into the module (no GD103)."""
    assert findings(TWO_CRITERIA) == set()
