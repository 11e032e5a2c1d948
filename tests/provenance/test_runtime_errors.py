"""GD107, GD108, GD109, GD112 at runtime, with the lines PyTorch's messages leave out."""

from __future__ import annotations

from tests.provenance.conftest import line_of

RNN = """
import torch
from torch import nn

torch.manual_seed(0)
rnn = nn.RNNCell(4, 8)
head = nn.Linear(8, 1)
opt = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.01)
hidden = torch.zeros(2, 8)
for step in range(3):
    x = torch.randn(2, 4)
    hidden = rnn(x, hidden)
    loss = head(hidden).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_rnn_hidden_state_without_detach_is_gd107_at_the_hidden_line(run_script):
    ran = run_script({"train.py": RNN})
    assert isinstance(ran.exception, RuntimeError)
    found = ran.only("GD107")
    assert (found.file, found.line) == ("train.py", line_of(RNN, "hidden = rnn(x, hidden)"))
    assert found.subjects == ["hidden"]
    assert "hidden = hidden.detach()" in found.hint
    lines = [r.line for r in found.related]
    assert line_of(RNN, "loss.backward()") in lines


def test_rnn_with_detach_is_silent(run_script):
    fixed = RNN.replace("    hidden = rnn(x, hidden)", "    hidden = rnn(x, hidden.detach())")
    ran = run_script({"train.py": fixed})
    assert ran.exception is None
    assert not ran.serious(), [(f.code, f.message) for f in ran.serious()]


def test_two_losses_sharing_a_graph_name_both_backward_lines(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 4)
    h = torch.tanh(model(torch.randn(3, 4)))
    loss_a = h.pow(2).mean()
    loss_b = h.abs().mean()
    loss_a.backward()
    loss_b.backward()
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD107")
    assert found.line == line_of(train, "loss_b.backward()")
    assert [r.line for r in found.related] == [line_of(train, "loss_a.backward()")]
    assert "(loss_a + loss_b).backward()" in found.hint


def test_retain_graph_for_two_backward_passes_is_silent(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    h = torch.tanh(model(torch.randn(3, 4)))
    h.pow(2).mean().backward(retain_graph=True)
    h.abs().mean().backward()
    opt.step()
    """
    ran = run_script({"train.py": train})
    assert ran.exception is None
    assert not ran.serious()


INPLACE = """
import torch
from torch import nn

torch.manual_seed(0)
lin = nn.Linear(4, 4)
out = lin(torch.randn(3, 4))
act = torch.sigmoid(out)
VERSIONS = [act._version]
act.relu_()
VERSIONS.append(act._version)
loss = act.sum()
loss.backward()
"""


def test_inplace_relu_on_saved_activation_is_gd108_at_that_line(run_script):
    ran = run_script({"train.py": INPLACE})
    assert isinstance(ran.exception, RuntimeError)
    found = ran.only("GD108")
    assert (found.file, found.line) == ("train.py", line_of(INPLACE, "act.relu_()"))
    assert "relu_" in found.message and "SigmoidBackward0" in found.message
    related = [r.line for r in found.related]
    assert line_of(INPLACE, "loss.backward()") in related
    assert related[0] == line_of(INPLACE, "act = torch.sigmoid(out)")  # the op that saved it


def test_oracle_the_named_inplace_line_really_bumped_the_version(tmp_path, run_script):
    import json

    # The script measures _version around the in-place line itself, before backward fails.
    measured = INPLACE.replace(
        "VERSIONS.append(act._version)",
        "VERSIONS.append(act._version); import json; json.dump(VERSIONS, open('versions.json', 'w'))",
    )
    ran = run_script({"train.py": measured})
    found = ran.only("GD108")
    assert found.line == line_of(measured, "act.relu_()")
    before, after = json.loads((tmp_path / "versions.json").read_text())
    assert after == before + 1
    assert f"from version {before} to {after}" in found.message


def test_the_saving_op_can_be_a_later_consumer_in_another_file(run_script):
    layers = """
    import torch


    def gate(h, w):
        return h * w
    """
    train = """
    import torch
    from torch import nn
    from layers import gate

    lin = nn.Linear(4, 4)
    w = torch.randn(3, 4, requires_grad=True)
    h = lin(torch.randn(3, 4))
    y = gate(h, w)
    h.add_(1)
    y.sum().backward()
    """
    ran = run_script({"layers.py": layers, "train.py": train})
    found = ran.only("GD108")
    assert (found.file, found.line) == ("train.py", line_of(train, "h.add_(1)"))
    assert "MulBackward0" in found.message
    assert (found.related[0].file, found.related[0].line) == ("layers.py", line_of(layers, "return h * w"))


def test_inplace_on_a_tensor_not_saved_is_silent(run_script):
    train = """
    import torch
    from torch import nn

    lin = nn.Linear(4, 4)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    out = lin(torch.randn(3, 4))
    out.add_(1)            # addmm does not save its output: allowed
    loss = out.pow(2).sum()
    loss.backward()
    opt.step()
    """
    ran = run_script({"train.py": train})
    assert ran.exception is None
    assert "GD108" not in ran.codes()


DATA_WRITE = """
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    model.weight.data.mul_(0.5)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_data_write_between_forward_and_backward_is_gd109(run_script):
    ran = run_script({"train.py": DATA_WRITE})
    found = ran.only("GD109")
    assert (found.file, found.line) == ("train.py", line_of(DATA_WRITE, "weight.data.mul_"))
    assert found.subjects == ["model.weight"]


def test_data_write_after_the_step_is_silent(run_script):
    train = """
    import torch
    from torch import nn

    model = nn.Linear(4, 1)
    for _ in range(2):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-0.1)     # old-style manual SGD: correct
    """
    ran = run_script({"train.py": train})
    assert "GD109" not in ran.codes()


DATA_ASSIGNED = """
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    model.weight.data = model.weight.data * 0.5     # new values behind the graph's back
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_data_assigned_new_values_between_forward_and_backward_is_gd109(run_script):
    ran = run_script({"train.py": DATA_ASSIGNED})
    found = ran.only("GD109")
    assert found.line == line_of(DATA_ASSIGNED, "model.weight.data = ")


# An adapter added to a model that already ran once (peft's IA3 does this in get_peft_model):
# its new parameters are moved to the base layer's device with `.to()`, which returns them
# unchanged, then the module is moved with `.to()`, which assigns `param.data = param`. Neither
# recorded anything into a graph nor changed a value: not a `.data` edit after a forward pass.
ADAPTER_MOVED = """
import torch
from torch import nn

torch.manual_seed(0)


class Scaled(nn.Module):
    def __init__(self, base):
        super().__init__()
        self.base = base
        self.scales = nn.ParameterDict({"default": nn.Parameter(torch.ones(base.out_features))})
        device = base.weight.device
        self.scales["default"] = self.scales["default"].to(device)
        self.to(device)

    def forward(self, x):
        return self.base(x) * self.scales["default"]


base = nn.Linear(8, 4)
print("probe", base(torch.randn(2, 8)).shape)       # the base model ran once before the adapter
for p in base.parameters():
    p.requires_grad_(False)
model = Scaled(base)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
x, y = torch.randn(32, 8), torch.randn(32, 4)
for step in range(3):
    loss = nn.functional.mse_loss(model(x), y)
    model.to("cpu")                                   # a no-op move between forward and backward
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_a_move_that_changes_nothing_is_no_data_edit(run_script):
    ran = run_script({"train.py": ADAPTER_MOVED})
    assert "GD109" not in ran.codes(), [(f.code, f.line, f.message) for f in ran.findings]
    assert ran.serious() == []


def test_leaf_inplace_error_is_gd109_at_the_line(run_script):
    train = """
    import torch

    w = torch.randn(3, requires_grad=True)
    w.add_(1)
    """
    ran = run_script({"train.py": train})
    found = ran.only("GD109")
    assert found.line == line_of(train, "w.add_(1)")


INFERENCE = """
import torch
from torch import nn

table = nn.Linear(4, 4)
head = nn.Linear(4, 4)
with torch.inference_mode():
    cached = table(torch.randn(3, 4))
loss = (head(torch.randn(3, 4)) * cached).sum()
loss.backward()
"""


def test_inference_tensor_saved_for_backward_is_gd112_at_its_creation(run_script):
    ran = run_script({"train.py": INFERENCE})
    found = ran.only("GD112")
    assert (found.file, found.line) == ("train.py", line_of(INFERENCE, "cached = table("))
    related = [r.line for r in found.related]
    assert line_of(INFERENCE, "loss = (head(") in related
    assert line_of(INFERENCE, "torch.inference_mode()") in related


def test_no_grad_cache_instead_of_inference_mode_is_silent(run_script):
    ran = run_script({"train.py": INFERENCE.replace("torch.inference_mode()", "torch.no_grad()")})
    assert ran.exception is None
    assert not ran.serious()


def test_state_kept_on_a_module_attribute_in_another_file(run_script):
    model = """
    import torch
    from torch import nn


    class Memory(nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = nn.Linear(4, 4)
            self.memory = torch.zeros(1, 4)

        def forward(self, x):
            self.memory = torch.tanh(self.cell(x) + self.memory)
            return self.memory.sum()
    """
    train = """
    import torch
    from model import Memory

    net = Memory()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(3):
        loss = net(torch.randn(1, 4))
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    ran = run_script({"model.py": model, "train.py": train})
    found = ran.only("GD107")
    assert (found.file, found.line) == ("model.py", line_of(model, "self.memory = torch.tanh("))
    assert found.subjects == ["net.memory"]


def test_wgan_clipping_before_the_critic_forward_is_silent(run_script):
    train = """
    import torch
    from torch import nn

    G, D = nn.Linear(2, 2), nn.Linear(2, 1)
    opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-5)
    for _ in range(3):
        fake = G(torch.randn(8, 2))                  # a forward pass of another model first
        for p in D.parameters():
            p.data.clamp_(-0.01, 0.01)               # then the critic's weights are clipped
        d_loss = D(fake.detach()).mean() - D(torch.randn(8, 2)).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
    """
    ran = run_script({"train.py": train})
    assert "GD109" not in ran.codes()


def test_carried_state_made_inside_a_user_module_names_both_lines(run_script):
    cell = """
    import torch
    from torch import nn


    class Cell(nn.Module):
        def __init__(self):
            super().__init__()
            self.ih, self.hh = nn.Linear(4, 8), nn.Linear(8, 8)

        def forward(self, x, h):
            return torch.tanh(self.ih(x) + self.hh(h))
    """
    train = """
    import torch
    from cell import Cell

    cell = Cell()
    opt = torch.optim.SGD(cell.parameters(), lr=0.1)
    h = torch.zeros(2, 8)
    for _ in range(3):
        h = cell(torch.randn(2, 4), h)
        loss = h.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    ran = run_script({"cell.py": cell, "train.py": train})
    found = ran.only("GD107")
    assert (found.file, found.line) == ("cell.py", line_of(cell, "return torch.tanh("))
    assert ("train.py", line_of(train, "h = cell(")) in [(r.file, r.line) for r in found.related]
