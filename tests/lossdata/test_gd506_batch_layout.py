"""GD506 batch-dimension-mix-up: sequence layers without batch_first given (batch, seq, feature) batches,
and the near misses (seq-first data used correctly, batch_first=True, a batch as long as the sequence)."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

from graddoctor import watch

VOCAB = 40


class Sentiment(nn.Module):
    """An LSTM sentiment classifier as tutorials write it."""

    def __init__(self, batch_first=False, cell=nn.LSTM):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 8)
        self.rnn = cell(8, 16, batch_first=batch_first)  # line: rnn built
        self.head = nn.Linear(16, 2)

    def forward(self, x, transpose=False):
        e = self.embed(x)
        if transpose:
            out, _ = self.rnn(e.transpose(0, 1))  # seq-first, as the layer wants
            return self.head(out[-1])
        out, _ = self.rnn(e)
        return self.head(out[:, -1])


def _tokens(n=96, seq=10, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, VOCAB, (n, seq), generator=g)
    return x, (x[:, 0] < VOCAB // 2).long()


def _gd506(w):
    assert not w.session.internal_errors, w.session.internal_errors
    return [f for f in w.report().findings if f.code == "GD506"]


def _line_of(marker: str) -> int:
    return next(i for i, text in enumerate(open(__file__).read().splitlines(), 1) if f"line: {marker}" in text)


def _train_loader(model, x, y, batch_size=16, epochs=1, **call):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loader = DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True)
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb, **call), yb).backward()
            opt.step()


@pytest.mark.parametrize("cell", [nn.LSTM, nn.GRU, nn.RNN])
def test_rnn_without_batch_first_fed_batch_first_fires(cell):
    x, y = _tokens()
    model = Sentiment(cell=cell)
    with watch() as w:
        _train_loader(model, x, y)
    found = _gd506(w)
    assert len(found) == 1, w.report()
    f = found[0]
    assert f.line == _line_of("rnn built") and f.subjects == ["rnn"]
    assert "(16, 10, 8)" in f.message and "DataLoader's batch size" in f.message
    assert {r.note for r in f.related} >= {"the layer is called here", "the loss, with a batch of 16"}


class StepRegressor(nn.Module):
    """One feature vector per sample given to a seq-first GRU as a sequence of length 1."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 16)
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        out, _ = self.rnn(x.unsqueeze(1))  # (batch, 1, feature): the batch read as one sequence
        return self.head(out[:, -1])


def test_a_loader_batch_read_as_one_sequence_of_length_one_fires():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(96, 8, generator=g)
    model = StepRegressor()
    with watch() as w:
        _train_loader(model, x, (x[:, 0] > 0).long())
    [f] = _gd506(w)
    assert f.evidence["input_shape"] == [16, 1, 8] and f.evidence["loader_batch_size"] == 16


def test_one_sentence_as_a_batch_of_one_with_a_tag_per_token_is_silent():
    # PyTorch's LSTM tagger: (sequence, 1, feature), and the targets' dimension 0 is the sentence's tokens
    torch.manual_seed(0)
    embed, lstm, head = nn.Embedding(VOCAB, 6), nn.LSTM(6, 6), nn.Linear(6, 3)
    params = [*embed.parameters(), *lstm.parameters(), *head.parameters()]
    opt = torch.optim.SGD(params, lr=0.1)
    model = nn.ModuleDict({"embed": embed, "lstm": lstm, "head": head})
    with watch(model, opt) as w:
        for n in (5, 4, 6, 3) * 3:
            sentence, tags = torch.randint(0, VOCAB, (n,)), torch.randint(0, 3, (n,))
            out, _ = lstm(embed(sentence).view(len(sentence), 1, -1))
            loss = F.nll_loss(F.log_softmax(head(out.view(len(sentence), -1)), dim=1), tags)
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert _gd506(w) == []


def test_seq_first_data_transposed_before_the_layer_is_silent():
    x, y = _tokens()
    with watch() as w:
        _train_loader(Sentiment(), x, y, transpose=True)
    assert _gd506(w) == []


def test_batch_first_true_is_silent():
    x, y = _tokens()
    with watch() as w:
        _train_loader(Sentiment(batch_first=True), x, y)
    assert _gd506(w) == []


def test_batch_as_long_as_the_sequence_gives_no_verdict():
    x, y = _tokens(seq=16)
    with watch() as w:
        _train_loader(Sentiment(), x, y, batch_size=16)
    assert _gd506(w) == []


class PatchClassifier(nn.Module):
    """A small vision transformer: patches through a TransformerEncoder built without batch_first."""

    def __init__(self, batch_first=False):
        super().__init__()
        self.embed = nn.Linear(12, 16)
        layer = nn.TransformerEncoderLayer(16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=batch_first)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)  # line: encoder built
        self.head = nn.Linear(16, 3)

    def forward(self, patches):
        return self.head(self.encoder(self.embed(patches))[:, 0])


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_encoder_on_sliced_tensors(batch_first):
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(64, 9, 12, generator=g), torch.randint(0, 3, (64,), generator=g)
    model = PatchClassifier(batch_first=batch_first)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    with watch() as w:
        for i in range(0, 64, 8):  # no DataLoader: batches sliced from tensors, the targets tell the batch
            opt.zero_grad()
            F.cross_entropy(model(x[i:i + 8]), y[i:i + 8]).backward()
            opt.step()
    found = _gd506(w)
    if batch_first:
        assert found == []
    else:
        assert len(found) == 1 and found[0].line == _line_of("encoder built"), w.report()
        assert "batch size of the targets" in found[0].message and found[0].subjects == ["encoder"]


def test_multihead_attention_seq_first_regression_is_silent():
    # Sequence-first throughout: (seq, batch, feature) in, the same layout in the loss.
    g = torch.Generator().manual_seed(0)
    attn = nn.MultiheadAttention(8, 2)
    opt = torch.optim.SGD(attn.parameters(), lr=0.05)
    with watch() as w:
        for _ in range(6):
            q = torch.randn(12, 4, 8, generator=g)
            out, _ = attn(q, q, q)
            opt.zero_grad()
            F.mse_loss(out, q.flip(0)).backward()
            opt.step()
    assert _gd506(w) == []


def test_hooks_are_gone_after_the_session():
    x, y = _tokens()
    model = Sentiment()
    with watch():
        _train_loader(model, x, y, batch_size=32)
    assert not model.rnn._forward_pre_hooks


# --- through the real command ------------------------------------------------------------------

_SENTIMENT = '''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
tokens = torch.randint(0, 30, (96, 7))
labels = (tokens[:, -1] < 15).long()
loader = DataLoader(TensorDataset(tokens, labels), batch_size=16, shuffle=True)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(30, 8)
        self.gru = nn.GRU(8, 16)
        self.out = nn.Linear(16, 2)

    def forward(self, x):
        h, _ = self.gru(self.embed(x)LAYOUT)
        return self.out(h[LAST])


model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
'''


def test_cli_names_the_construction_the_call_and_the_loss(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=_SENTIMENT.replace("LAYOUT", "").replace("LAST", ":, -1"))
    f = ran.finding("GD506")
    assert f["file"] == "train.py" and f["line"] == 16 and f["subjects"] == ["gru"]
    assert [(r["line"], r["note"]) for r in f["related"]] == [
        (20, "the layer is called here"), (27, "the loss, with a batch of 16")]
    assert ran.returncode == 1


def test_cli_is_silent_when_the_batch_is_transposed_first(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=_SENTIMENT.replace("LAYOUT", ".transpose(0, 1)").replace("LAST", "-1"))
    assert "GD506" not in ran.codes(), ran.stdout
