"""Meaning across the functions and methods of one file (issue 32, the fourth blind set's misses).

A bug split between a method and the code that calls it, in another class or
function: `MiniTrainer().fit(LitModel(), loader)` backpropagating what
`training_step` returned, an agent's `learn()` called from the episode loop, a
loss handed to an `engine.backward(loss)` method of the file, a helper
decorated `@torch.no_grad()` reused by `training_step`, a layer's weight edited
in place by a method the loop calls, a numpy round trip inside a helper, a critic's
`(N, 1)` output against `(N,)` returns made by another helper, Q-values gathered
with a column of indices against a one-dimensional target, an agent's `update()`
that never steps, a `clip()` method called after the step method, a block repeated or
modules listed by a helper the module's `__init__` calls, a loss kept on `self` by a
step method the loop calls. One
resolver says which definition a call runs (`calls.resolve`); the value flow,
the loop events, the parameter binding and the causes of a loss without
history (`numbers.without_graph`) all go through it. Each firing program has
near misses of the same shape that must stay silent under every code.
"""

from __future__ import annotations

import pytest

from tests.lint.test_value_flow import findings, line_of

LIT_TRAINER = """
class LitTagger(nn.Module):
    def __init__(self, d_in=20, n_cls=5):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 64), nn.ReLU(), nn.Linear(64, n_cls))
        self.logged = {{}}

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(-1) == y).float().mean()
        self.logged["acc"] = acc.item()
        return {{"loss": {loss}, "acc": acc.item()}}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


class MiniTrainer:
    def __init__(self, max_epochs=2):
        self.max_epochs = max_epochs

    def fit(self, module, loader):
        opt = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(loader):
                out = module.training_step(batch, batch_idx)
                opt.zero_grad()
                out["loss"].backward()
                opt.step()
            print(epoch, module.logged)


MiniTrainer().fit(LitTagger(), loader)
"""

AGENT = """
class QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, x):
        return self.net(x)


class Agent:
    def __init__(self, gamma=0.99):
        self.q, self.q_target = QNet(), QNet()
        self.optimizer = torch.optim.Adam(self.q.parameters(), lr=1e-3)
        self.gamma = gamma

    def learn(self, obs, act, rew, obs2):
        q = self.q(obs).gather(1, act.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            target = rew + self.gamma * self.q_target(obs2).max(1).values
        loss = F.smooth_l1_loss(q, target)
{clear}
        loss.backward()
        self.optimizer.step()
        return loss.item()


agent = Agent()
for step, (obs, act, rew, obs2) in enumerate(replay):
{outer}
    agent.learn(obs, act, rew, obs2)
"""

TOKENS = """
class Engine:
    def __init__(self, accumulation=1):
        self.accumulation = accumulation

    def backward(self, loss):
        (loss / self.accumulation).backward()


def token_loss(logits, labels):
    per_tok = F.cross_entropy(logits.reshape(-1, 24), labels.reshape(-1), reduction="none")
    mask = (labels.reshape(-1) != 0).float()
    return {ret}


engine = Engine()
model = nn.Sequential(nn.Embedding(24, 32), nn.Linear(32, 24))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
for src, labels in batches:
    loss = token_loss(model(src), labels)
    engine.backward({backward})
    optimizer.step()
    optimizer.zero_grad()
"""

SIMCLR = """
class SimCLR(nn.Module):
    def __init__(self, d_in=32, d_feat=64, temperature=0.2):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, d_feat), nn.ReLU(), nn.Linear(d_feat, d_feat))
        self.projector = nn.Sequential(nn.Linear(d_feat, d_feat), nn.ReLU(), nn.Linear(d_feat, 32))
        self.t = temperature

    @torch.no_grad()
    def embed(self, x):
        return F.normalize(self.projector(self.encoder(x)), dim=-1)

    def project(self, x):
        return F.normalize(self.projector(self.encoder(x)), dim=-1)

    def nt_xent(self, z1, z2):
        z = torch.cat([z1, z2])
        sim = z @ z.t() / self.t
        sim.fill_diagonal_(float("-inf"))
        n = z1.shape[0]
        targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
        return F.cross_entropy(sim, targets)

    def training_step(self, x):
        v1 = x + 0.2 * torch.randn_like(x)
        v2 = x * (torch.rand_like(x) > 0.1)
        return self.nt_xent(self.{view}(v1), self.{view}(v2))


def knn_accuracy(model, bank_x, bank_y, qx, qy):
    sims = model.embed(qx) @ model.embed(bank_x).t()
    return (bank_y[sims.argmax(-1)] == qy).float().mean().item()


model = SimCLR()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(2):
    for x in loader:
        loss = model.training_step(x)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, knn_accuracy(model, bank_x, bank_y, query_x, query_y))
"""

SWAV = """
class SwAVHead(nn.Module):
    def __init__(self, d_in=32, d_proj=16, n_protos=10):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(d_in, 64), nn.ReLU(), nn.Linear(64, d_proj))
        self.prototypes = nn.Linear(d_proj, n_protos, bias=False)

{decorator}
    def normalize_prototypes(self):
        w = self.prototypes.{weight}
{renorm}

    def forward(self, x):
        return self.prototypes(F.normalize(self.proj(x), dim=1))


head = SwAVHead()
opt = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)
for x, codes in loader:
{call}
    loss = F.cross_entropy(head(x) / 0.1, codes)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
NORMALIZE = "    head.normalize_prototypes()"
DIV = "        w.div_(w.norm(dim=1, keepdim=True))"

GCN = """
import numpy as np


class GCN(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.l1 = nn.Linear(d_in, d_hidden)
        self.l2 = nn.Linear(d_hidden, d_out)

    def forward(self, x, a_hat):
        return a_hat @ self.l2(F.relu(a_hat @ self.l1(x)))


def l2_normalize(h):
    arr = h.detach().cpu().numpy()
    arr = arr / (np.linalg.norm(arr, axis=1, keepdims=True) + 1e-8)
    return torch.from_numpy(arr)


def edge_scores(z, pairs):
    return (z[pairs[0]] * z[pairs[1]]).sum(-1) * 5.0


model = GCN(12, 32, 16)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(30):
    neg = torch.randint(0, 60, (2, 200))
    z = {embed}
    logits = torch.cat([edge_scores(z, pos), edge_scores(z, neg)])
    labels = torch.cat([torch.ones(200), torch.zeros(200)])
    loss = F.binary_cross_entropy_with_logits(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(epoch, l2_normalize(model(feats, a_hat)).std().item())
"""

CRITIC = """
class Critic(nn.Module):
    def __init__(self, obs_dim=5):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 1))

    def forward(self, obs):
        return self.v(obs)


def gae(rewards, values, gamma=0.99, lam=0.95):
    adv = torch.zeros_like(rewards)
    last = 0.0
    for t in reversed(range(len(rewards))):
        next_v = values[t + 1] if t + 1 < len(rewards) else 0.0
        last = rewards[t] + gamma * next_v - values[t] + gamma * lam * last
        adv[t] = last
    return adv, adv + values


def value_loss(critic, obs, returns, old_values, clip=0.2):
    values = {values}
    clipped = old_values + (values - old_values).clamp(-clip, clip)
    return 0.5 * torch.max((values - returns) ** 2, (clipped - returns) ** 2).mean()


critic = Critic()
opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
for it in range(5):
    obs = torch.randn(128, 5)
    rewards = obs[:, 0].clamp(min=0)
    with torch.no_grad():
        old_values = critic(obs).squeeze(-1)
    adv, returns = gae(rewards, old_values)
    for epoch in range(4):
        loss = value_loss(critic, obs, returns, old_values)
        opt.zero_grad()
        loss.backward()
        opt.step()
"""

DOUBLE_DQN = """
class QNet(nn.Module):
    def __init__(self, obs=4, actions=2):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(obs, 64), nn.ReLU(), nn.Linear(64, actions))

    def forward(self, s):
        return self.fc(s)


online, target = QNet(), QNet()
optimizer = torch.optim.Adam(online.parameters(), lr=5e-4)
gamma = 0.99


def td_loss(batch):
    s, a, r, s2, done = batch
    q_sa = {q_sa}
    with torch.no_grad():
        best = online(s2).argmax(dim=1, keepdim=True)
        q_next = target(s2).gather(1, best).squeeze(-1)
        y = r + gamma * (1.0 - done) * q_next
    return F.smooth_l1_loss(q_sa, y)


for step in range(100):
    batch = (torch.randn(32, 4), torch.randint(0, 2, (32,)), torch.rand(32), torch.randn(32, 4),
             (torch.rand(32) < 0.1).float())
    loss = td_loss(batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

LEARNER = """
def backward_step(loss):
    loss.backward()


class BaseLearner:
    def update(self, loss):
{clear}
        backward_step(loss)
        self.optimizer.step()


class Regressor(BaseLearner):
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)


learner = Regressor()
for x, y in loader:
    learner.update(F.mse_loss(learner.model(x).squeeze(-1), y))
"""

REINFORCE_AGENT = """
class Agent:
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=1e-3)

    def update(self, obs, actions, returns):
        logp = F.log_softmax(self.policy(obs), -1).gather(1, actions.unsqueeze(1)).squeeze(1)
        loss = -(logp * returns).mean()
        self.optimizer.zero_grad()
        loss.backward()
{step}
        return loss.item()


agent = Agent()
for episode in range(100):
    obs, actions, returns = rollout(agent.policy)
    agent.update(obs, actions, returns)
"""

ENGINE = """
class Engine:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def clip(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)

    def run_batch(self, x, y):
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
{inside}
        self.optimizer.step()
        return loss.item()


engine = Engine(nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4)))
for x, y in loader:
    engine.run_batch(x, y)
{after}
"""

TOWER = """
import copy


def make_blocks(block, n):
    return [{entry} for _ in range(n)]


class Tower(nn.Module):
    def __init__(self, d=32, depth=4):
        super().__init__()
        block = nn.Sequential(nn.Linear(d, d), nn.ReLU())
        self.blocks = nn.ModuleList(make_blocks(block, depth))
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)


model = Tower()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    loss = F.mse_loss(model(x).squeeze(-1), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

MOE = """
def build_experts(d, n):
    experts = []
    for _ in range(n):
        experts.append(nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d)))
    return experts


class MoE(nn.Module):
    def __init__(self, d=16, n=4):
        super().__init__()
        self.gate = nn.Linear(d, n)
        self.experts = {experts}

    def forward(self, x):
        w = self.gate(x).softmax(-1)
        return sum(w[:, i:i + 1] * e(x) for i, e in enumerate(self.experts))


model = MoE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

RUNNING = """
class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.running = 0.0
        self.losses = []

    def step(self, x, y):
        loss = F.cross_entropy(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
{keep}


trainer = Trainer(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3)))
for epoch in range(3):
    for x, y in loader:
        trainer.step(x, y)
    print(epoch, trainer.running, len(trainer.losses))
"""

FIRING = {
    "running-loss-attribute-summed-by-a-step-method": (
        RUNNING.format(keep="        self.running += loss"), "GD207", "self.running += loss"),
    "losses-attribute-appended-by-a-step-method": (
        RUNNING.format(keep="        self.losses.append(loss)"), "GD207", "self.losses.append(loss)"),
    "one-block-repeated-by-a-helper-into-a-module-list": (TOWER.format(entry="block"), "GD502", "return [block for"),
    "experts-built-by-a-helper-kept-in-a-plain-list": (
        MOE.format(experts="build_experts(d, n)"), "GD105", "self.experts = build_experts"),
    "agent-update-method-never-steps": (REINFORCE_AGENT.format(step=""), "GD203", "loss.backward()"),
    "clip-method-called-after-the-step-method": (
        ENGINE.format(inside="", after="    engine.clip()"), "GD206", "torch.nn.utils.clip_grad_norm_"),
    "inherited-update-method-never-clears": (LEARNER.format(clear=""), "GD201", "self.optimizer.step()"),
    "gathered-q-column-against-a-one-dimensional-target": (
        DOUBLE_DQN.format(q_sa="online(s).gather(1, a.unsqueeze(-1))"), "GD503", "return F.smooth_l1_loss(q_sa, y)"),
    "critic-column-against-returns-of-a-helper-in-a-helper": (
        CRITIC.format(values="critic(obs)"), "GD503", "torch.max((values - returns)"),
    "training-step-returns-item-to-a-trainer-of-another-class": (
        LIT_TRAINER.format(loss="loss.item()"), "GD101", 'return {"loss": loss.item()'),
    "agent-learn-method-never-clears-called-from-the-loop": (
        AGENT.format(clear="", outer=""), "GD201", "self.optimizer.step()"),
    "per-token-loss-through-a-backward-method-of-the-file": (
        TOKENS.format(ret="per_tok * mask", backward="loss"), "GD103", "engine.backward(loss)"),
    "no-grad-decorated-embedding-reused-by-training-step": (
        SIMCLR.format(view="embed"), "GD110", "@torch.no_grad()"),
    "layer-weight-renormalised-in-place-by-a-method": (
        SWAV.format(decorator="", weight="weight", call=NORMALIZE, renorm=DIV), "GD109", "w.div_("),
    "numpy-round-trip-inside-a-helper-feeds-the-loss": (
        GCN.format(embed="l2_normalize(model(feats, a_hat))"), "GD102", "arr = h.detach()"),
}

NEAR_MISSES = {
    "running-loss-attribute-summed-as-a-number": RUNNING.format(keep="        self.running += loss.item()"),
    "losses-attribute-appended-detached": RUNNING.format(keep="        self.losses.append(loss.detach())"),
    "running-loss-attribute-reset-in-the-same-call": RUNNING.format(
        keep="        self.running = 0.0\n        self.running += loss"),
    "a-helper-deep-copies-the-block-per-entry": TOWER.format(entry="copy.deepcopy(block)"),
    "experts-built-by-a-helper-wrapped-in-a-module-list": MOE.format(experts="nn.ModuleList(build_experts(d, n))"),
    "agent-update-method-steps": REINFORCE_AGENT.format(step="        self.optimizer.step()"),
    "clip-method-called-between-backward-and-step": ENGINE.format(inside="        self.clip()", after=""),
    "inherited-update-method-clears": LEARNER.format(clear="        self.optimizer.zero_grad()"),
    "gathered-q-squeezed-against-a-one-dimensional-target": DOUBLE_DQN.format(
        q_sa="online(s).gather(1, a.unsqueeze(-1)).squeeze(-1)"),
    "critic-squeezed-against-returns-of-a-helper": CRITIC.format(values="critic(obs).squeeze(-1)"),
    "training-step-returns-the-tensor-items-only-logged": LIT_TRAINER.format(loss="loss"),
    "agent-learn-method-clears-before-backward": AGENT.format(clear="        self.optimizer.zero_grad()", outer=""),
    "agent-cleared-by-the-caller-loop": AGENT.format(clear="", outer="    agent.optimizer.zero_grad()"),
    "per-token-loss-averaged-over-the-mask": TOKENS.format(ret="(per_tok * mask).sum() / mask.sum()", backward="loss"),
    "per-token-loss-averaged-by-the-caller": TOKENS.format(ret="per_tok * mask", backward="loss.mean()"),
    "no-grad-embedding-only-in-evaluation": SIMCLR.format(view="project"),
    "layer-weight-renormalised-in-a-no-grad-method": SWAV.format(
        decorator="    @torch.no_grad()", weight="weight", call=NORMALIZE, renorm=DIV),
    "layer-weight-renormalised-in-a-no-grad-block-of-the-method": SWAV.format(
        decorator="", weight="weight", call=NORMALIZE, renorm="        with torch.no_grad():\n    " + DIV),
    "layer-weight-renormalised-through-data": SWAV.format(decorator="", weight="weight.data", call=NORMALIZE, renorm=DIV),
    "layer-weight-renormalised-under-no-grad-in-the-loop": SWAV.format(
        decorator="", weight="weight", call="    with torch.no_grad():\n    " + NORMALIZE, renorm=DIV),
    "numpy-round-trip-only-for-a-printed-metric": GCN.format(embed="F.normalize(model(feats, a_hat), dim=1)"),
}


@pytest.mark.parametrize("name", sorted(FIRING) + sorted(NEAR_MISSES))
def test_flow_across_calls(name):
    """Firing programs are found at their line; near misses give no error or warning at all."""
    if name in NEAR_MISSES:
        assert findings(NEAR_MISSES[name]) == set()
    else:
        body, code, marker = FIRING[name]
        assert (code, line_of(body, marker)) in findings(body)
