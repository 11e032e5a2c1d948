"""GD111 on a bidirectional RNN read at one time step: the line that indexes is the cause.

`out[:, -1, :]` of a bidirectional LSTM leaves the reverse direction's last-layer
hidden-to-hidden weights with a gradient of exactly zero (there it has read one
token from a zero state). Real tiny classifiers through the real `graddoctor run`.
"""

from __future__ import annotations

import pytest

from tests.provenance.conftest import line_of

CLASSIFIER = """
import torch
from torch import nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 16, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(32, 3)

    def forward(self, x):
        out, (h_n, c_n) = self.rnn(x)
        return self.fc(out[:, -1, :])


model = Classifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(16, 6, 8)
y = torch.randint(0, 3, (16,))
for step in range(6):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
import json
json.dump({n: float(p.grad.abs().max()) for n, p in model.named_parameters()}, open("grads.json", "w"))
"""

GRU_TIME_FIRST = (CLASSIFIER.replace("nn.LSTM(8, 16, num_layers=2, batch_first=True,", "nn.GRU(8, 16, num_layers=2,")
                  .replace("out, (h_n, c_n) = self.rnn(x)", "out, h_n = self.rnn(x.transpose(0, 1))")
                  .replace("return self.fc(out[:, -1, :])", "return self.fc(out[-1])"))


@pytest.mark.parametrize("script, index, subject", [
    (CLASSIFIER, "return self.fc(out[:, -1, :])", "rnn.weight_hh_l1_reverse"),
    (GRU_TIME_FIRST, "return self.fc(out[-1])", "rnn.weight_hh_l1_reverse"),
    (CLASSIFIER.replace("out[:, -1, :]", "out[:, 0, :]"), "return self.fc(out[:, 0, :])", "rnn.weight_hh_l1"),
], ids=["lstm-last-step", "gru-time-first", "lstm-first-step"])
def test_one_time_step_of_a_bidirectional_rnn_is_named_at_the_indexing_line(graddoctor_cli, script, index, subject):
    ran = graddoctor_cli("run", "train.py", script=script, timeout=400)
    found = ran.finding("GD111")
    # named by the script's variable for the model, then the parameter's path in it
    assert (found["file"], found["line"], found["subjects"]) == ("train.py", line_of(script, index), [f"model.{subject}"])
    assert "has seen a single token" in found["message"]
    assert "h_n[-2], h_n[-1]" in found["hint"] and "out[:, 0, hidden:]" in found["hint"]
    assert "initialisation" not in found["hint"] and "masking" not in found["hint"]
    module_line = line_of(script, "self.rnn = nn.")
    assert [r["line"] for r in found["related"]] == [module_line]  # the constructor is related, not the cause
    import json

    grads = json.loads((graddoctor_cli.path / "grads.json").read_text())
    assert grads[subject] == 0.0  # oracle: torch really gives it a zero gradient


@pytest.mark.parametrize("head", [
    "torch.cat([h_n[-2], h_n[-1]], dim=1)",
    "torch.cat([out[:, -1, :16], out[:, 0, 16:]], dim=1)",
    "out.mean(dim=1)",
], ids=["final-states", "each-direction-complete", "mean-over-time"])
def test_heads_that_read_both_directions_fully_are_silent(graddoctor_cli, head):
    ran = graddoctor_cli("run", "train.py", script=CLASSIFIER.replace("out[:, -1, :]", head), timeout=400)
    assert [f["code"] for f in ran.report["findings"] if f["severity"] != "info"] == []


def test_one_direction_read_at_its_last_step_is_silent(graddoctor_cli):
    script = CLASSIFIER.replace(", bidirectional=True", "").replace("nn.Linear(32, 3)", "nn.Linear(16, 3)")
    ran = graddoctor_cli("run", "train.py", script=script, timeout=400)
    assert [f["code"] for f in ran.report["findings"] if f["severity"] != "info"] == []
