"""GD507 all-targets-ignored: token classification batches whose every label is ignore_index,
and the near misses (padding ignored, a few ignored labels, probability targets)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch
from graddoctor.finding import Severity

from tests.lossdata.helpers import findings

VOCAB = 32


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(VOCAB, 16)
        self.head = nn.Linear(16, VOCAB)

    def forward(self, ids):
        return self.head(torch.tanh(self.embed(ids)))


def _line_of(marker: str) -> int:
    return next(i for i, text in enumerate(open(__file__).read().splitlines(), 1) if f"line: {marker}" in text)


def _batches(n=12, masked=lambda i, labels: labels, seed=0):
    g = torch.Generator().manual_seed(seed)
    for i in range(n):
        ids = torch.randint(0, VOCAB, (8, 12), generator=g)
        yield ids, masked(i, ids.roll(-1, dims=1).clone())


def _train(batches, loss_fn=None, **kw):
    model = Tagger()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    loss_fn = loss_fn or nn.CrossEntropyLoss(**kw)
    losses = []
    for ids, labels in batches:
        logits = model(ids)
        loss = loss_fn(logits.reshape(-1, VOCAB), labels.reshape(-1))  # line: token loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return model, losses


def _all_ignored(i, labels):
    return torch.full_like(labels, -100)


def test_every_label_ignored_is_an_error_at_the_loss_line():
    with watch() as w:
        _, losses = _train(_batches(masked=_all_ignored))
    assert all(l != l for l in losses)  # the oracle: torch's loss really is NaN
    [f] = findings(w, "GD507")
    assert f.severity == Severity.ERROR and f.line == _line_of("token loss")
    assert f.evidence["batches_all_ignored"] == f.evidence["batches_checked"] == 12
    assert f.evidence["ignore_index"] == -100 and f.evidence["reduction"] == "mean" and f.step == 1
    assert "NaN" in f.message


def test_the_gradient_is_really_zero():
    model = Tagger()
    ids, labels = next(_batches(1, masked=_all_ignored))
    F.cross_entropy(model(ids).reshape(-1, VOCAB), labels.reshape(-1)).backward()
    assert all(not p.grad.any() for p in model.parameters())


def test_a_custom_ignore_index_with_sum_reduction_gives_zero():
    with watch() as w:
        _, losses = _train(_batches(masked=lambda i, l: torch.zeros_like(l)), ignore_index=0, reduction="sum")
    assert losses == [0.0] * 12
    [f] = findings(w, "GD507")
    assert f.evidence["ignore_index"] == 0 and f.severity == Severity.ERROR and "is 0" in f.message


def test_some_batches_fully_ignored_is_a_warning():
    with watch() as w:
        _train(_batches(masked=lambda i, l: _all_ignored(i, l) if i % 4 == 3 else l))
    [f] = findings(w, "GD507")
    assert f.severity == Severity.WARNING
    assert (f.evidence["batches_all_ignored"], f.evidence["batches_checked"]) == (3, 12)
    assert f.step == 4


def test_nll_loss_called_with_positional_ignore_index():
    model = Tagger()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch() as w:
        for ids, labels in _batches(masked=lambda i, l: torch.full_like(l, 7)):
            loss = F.nll_loss(F.log_softmax(model(ids), -1).reshape(-1, VOCAB), labels.reshape(-1), None, None, 7)
            opt.zero_grad()
            loss.backward()
            opt.step()
    [f] = findings(w, "GD507")
    assert f.evidence["ignore_index"] == 7


# --- near misses ------------------------------------------------------------------------------

def _pad_tail(i, labels):
    labels[:, 8:] = -100  # padding after the 8th token
    return labels


def test_padding_ignored_is_silent():
    with watch() as w:
        _train(_batches(masked=_pad_tail))
    assert findings(w, "GD507") == []


def test_a_batch_with_few_targets_left_is_silent():
    def almost_all(i, labels):
        kept = labels[0, 0].item()
        labels[:] = -100
        labels[0, 0] = kept
        return labels

    with watch() as w:
        _train(_batches(masked=almost_all))
    assert findings(w, "GD507") == []


def test_probability_targets_are_not_read():
    with watch() as w:
        _train(_batches(masked=lambda i, l: F.one_hot(l, VOCAB).float()),
               loss_fn=lambda logits, target: F.cross_entropy(logits, target.reshape(-1, VOCAB)))
    assert findings(w, "GD507") == []


def test_an_evaluation_loss_without_graph_is_not_read():
    model = Tagger()
    with watch() as w:
        with torch.no_grad():
            for ids, labels in _batches(masked=_all_ignored):
                F.cross_entropy(model(ids).reshape(-1, VOCAB), labels.reshape(-1))
        _train(_batches(masked=_pad_tail))
    assert findings(w, "GD507") == []
