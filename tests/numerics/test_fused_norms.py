"""The per-step norms measured in few kernels (same-shape gradients stacked) are torch's norms.

A residual stack of same-shape blocks (their gradients are stacked together), an
embedding and a head of their own shapes (reduced one by one), and an auxiliary
head used on every third step only, so that the set of present gradients changes
between steps. Oracle: torch.linalg.vector_norm of the gradients themselves.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

import graddoctor
from graddoctor import watch


class Tagger(nn.Module):
    def __init__(self, vocab: int = 50, d: int = 32, depth: int = 6, tags: int = 5) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.GELU()) for _ in range(depth))
        self.head = nn.Linear(d, tags)
        self.aux = nn.Linear(d, 1)  # a length predictor, trained on some batches only

    def forward(self, ids, with_aux: bool):
        h = self.embed(ids)
        for block in self.blocks:
            h = h + block(h)
        out = self.head(h)
        return (out, self.aux(h.mean(1)).squeeze(-1)) if with_aux else (out, None)


def _run(steps: int, **opts):
    torch.manual_seed(0)
    model = Tagger()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(2)
    grads_seen = []
    with watch(model, opt, **opts) as w:
        for step in range(steps):
            ids = torch.randint(0, 50, (8, 12), generator=g)
            tags = ids % 5
            opt.zero_grad(set_to_none=True)
            logits, length = model(ids, with_aux=step % 3 == 0)
            loss = F.cross_entropy(logits.reshape(-1, 5), tags.reshape(-1))
            if length is not None:
                loss = loss + F.mse_loss(length, ids.float().mean(1))
            loss.backward()
            opt.step()
            grads_seen.append({n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None})
    return w, model, grads_seen


def test_layer_norms_are_torch_norms_with_gradients_that_come_and_go():
    w, model, grads = _run(14, layer_every=1)
    assert not w.session.internal_errors, w.session.internal_errors
    assert w.report().ok, str(w.report())
    stats = w.layer_stats().record
    names = stats.names()
    last = {names[key]: track.last for key, track in stats.layers.items()}
    final = grads[-1]
    for layer in ("blocks.0.1", "blocks.5.0", "embed", "head"):
        expected = torch.linalg.vector_norm(torch.cat([g.flatten() for n, g in final.items()
                                                        if n.rsplit(".", 1)[0] == layer])).item()
        shown = last[f"model.{layer}"]  # named by the variable watch() was given
        assert abs(shown - expected) <= 1e-5 * max(1.0, expected), (layer, shown, expected)
    # the auxiliary head had a gradient on steps 0, 3, 6, 9, 12 only: its last norm is step 12's
    aux = torch.linalg.vector_norm(torch.cat([grads[12]["aux.weight"].flatten(), grads[12]["aux.bias"]])).item()
    assert abs(last["model.aux"] - aux) <= 1e-5 * max(1.0, aux)


def test_history_every_step_in_the_monitor_and_sampled_in_watch():
    w, _, _ = _run(30)
    rows = [step for step, _ in w.layer_stats().record.history]
    assert rows[:10] == list(range(1, 11)) and 30 in rows and len(rows) < 30  # first steps, sampled, the last one
    torch.manual_seed(0)
    model = Tagger()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with graddoctor.GradFlowMonitor(model, opt) as monitor:
        for _ in range(25):
            opt.zero_grad()
            ids = torch.randint(0, 50, (4, 6))
            logits, _ = model(ids, with_aux=False)
            F.cross_entropy(logits.reshape(-1, 5), (ids % 5).reshape(-1)).backward()
            opt.step()
    assert [s for s, _ in monitor.history()["model.head"]] == list(range(1, 26))
