"""GD101 at run time for losses rebuilt from `.item()` numbers through Python containers.

Issue 22 (a): per-sample losses turned into floats, collected in a list, `sum()`ed and
re-wrapped with `torch.tensor(total, requires_grad=True)` must be GD101 at the `.item()`
line from the run itself, not only from the static pass. The near misses: `.item()` used
for logging with a tensor of the average built for a log, and a number cut on one branch
of a loss that still trains the rest (GD104 there, not GD101).
"""

from __future__ import annotations

from tests.provenance.conftest import line_of

PER_SAMPLE_TRAINER = """
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)


class Trainer:
    def __init__(self, model):
        self.model = model
        self.criterion = nn.MSELoss()
        self.opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def train_batch(self, xb, yb):
        losses = []
        for i in range(xb.shape[0]):
            losses.append(self.criterion(self.model(xb[i:i + 1]), yb[i:i + 1]).item())
        {combine}
        loss = torch.tensor(total, requires_grad=True)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


x, y = torch.randn(32, 6), torch.randn(32, 1)
trainer = Trainer(nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1)))
for start in range(0, 32, 8):
    trainer.train_batch(x[start:start + 8], y[start:start + 8])
"""


def test_item_floats_summed_in_a_list_and_rewrapped_are_gd101_at_the_item_line(run_script):
    train = PER_SAMPLE_TRAINER.replace("{combine}", "total = sum(losses) / len(losses)")
    ran = run_script({"train.py": train})
    assert ran.exception is None
    assert "GD104" not in ran.codes()
    found = ran.only("GD101")
    assert (found.file, found.line) == ("train.py", line_of(train, ".item())"))
    notes = {r.line: r.note for r in found.related}
    assert "hides the cut" in notes[line_of(train, "loss = torch.tensor(total")]
    assert set(found.subjects) == {"model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias"}


def test_a_plain_sum_of_the_item_floats_is_found_too(run_script):
    train = PER_SAMPLE_TRAINER.replace("{combine}", "total = 0.5 * 2 * sum(losses)")
    ran = run_script({"train.py": train})
    found = ran.only("GD101")
    assert found.line == line_of(train, ".item())")


def test_np_mean_of_the_item_floats_a_numpy_float64_is_found_too(run_script):
    train = PER_SAMPLE_TRAINER.replace("{combine}", "total = np.mean(losses)")
    ran = run_script({"train.py": train})
    assert "GD104" not in ran.codes()
    assert ran.only("GD101").line == line_of(train, ".item())")


def test_item_for_logging_and_an_average_tensor_for_the_log_are_not_blamed(run_script):
    train = """
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(64, 6), torch.randn(64, 1)
    history = []
    for epoch in range(3):
        values = []
        for start in range(0, 64, 16):
            loss = nn.functional.mse_loss(model(x[start:start + 16]), y[start:start + 16])
            opt.zero_grad()
            loss.backward()
            opt.step()
            values.append(loss.item())
        history.append(torch.tensor(sum(values) / len(values)))
    print(torch.stack(history))
    """
    ran = run_script({"train.py": train})
    assert ran.serious() == []


def test_a_number_cut_on_one_branch_stays_gd104_for_that_branch(run_script):
    train = """
    import torch
    from torch import nn

    torch.manual_seed(0)


    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(6, 8)
            self.main = nn.Linear(8, 1)
            self.aux = nn.Linear(8, 1)

        def forward(self, x):
            h = torch.tanh(self.body(x))
            return self.main(h), self.aux(h)


    model = TwoHeads()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(64, 6), torch.randn(64, 1)
    for start in range(0, 64, 16):
        out, aux = model(x[start:start + 16])
        aux_penalty = aux.pow(2).mean().item()
        loss = nn.functional.mse_loss(out, y[start:start + 16]) + 0.1 * torch.tensor(aux_penalty)
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    ran = run_script({"train.py": train})
    assert "GD101" not in ran.codes()
    found = ran.only("GD104")
    assert found.line == line_of(train, "aux_penalty = aux.pow(2).mean().item()")
    assert set(found.subjects) == {"model.aux.weight", "model.aux.bias"}
