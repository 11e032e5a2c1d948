"""graddoctor in Jupyter: a real notebook executed by a real IPython kernel (nbclient + ipykernel).

`%load_ext graddoctor`, a `%%graddoctor` cell run as `graddoctor run` runs a
script, a `watch()` attached in one cell and reported in a later one, a
correct cell that stays silent, and `%graddoctor on` / `report` / `off` around
cells (one of them raising); the findings are read from the executed
notebook's outputs, where the user would see them.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

pytestmark = [pytest.mark.slow, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]

SETUP = """\
import torch
from torch import nn
import graddoctor

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.aux = nn.Linear(16, 3)
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.encoder(x))

def batches(n):
    g = torch.Generator().manual_seed(0)
    for _ in range(n):
        yield torch.randn(16, 8, generator=g), torch.randint(0, 2, (16,), generator=g)
"""

UNUSED_BRANCH_CELL = """\
%%graddoctor --max-steps 8
model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in batches(20):
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

ATTACH_CELL = """\
net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.01)
w = graddoctor.watch(net, opt).attach()
"""

NO_ZERO_GRAD_CELL = """\
for x, y in batches(6):
    loss = nn.functional.cross_entropy(net(x), y)
    loss.backward()
    opt.step()
"""

REPORT_CELL = """\
w.detach()
w.report()
"""

CORRECT_CELL = """\
%%graddoctor
clean = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
clean_opt = torch.optim.SGD(clean.parameters(), lr=0.01)
for x, y in batches(6):
    clean_opt.zero_grad()
    loss = nn.functional.cross_entropy(clean(x), y)
    loss.backward()
    clean_opt.step()
"""

CRASH_CELL = """\
%%graddoctor
broken = nn.Linear(8, 2)
loss = broken(torch.randn(4, 8)).sum()
loss.backward()
loss.backward()
"""

SURFACE_CELL = """\
from torch.optim import optimizer as optimizer_module
from graddoctor.session.session import current_sessions

def surface():
    # what an attached session replaces or registers: it must all be back after `%graddoctor off`
    return (torch.autograd.backward, torch.optim.Optimizer.__dict__["zero_grad"], nn.Module.__dict__["zero_grad"],
            dict(optimizer_module._global_optimizer_pre_hooks), dict(optimizer_module._global_optimizer_post_hooks),
            len(current_sessions()))

before = surface()
"""

LINE_ON_CELL = "%graddoctor on"

WATCHED_CELL = """\
lm = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
lm_opt = torch.optim.SGD(lm.parameters(), lr=0.01)
for x, y in batches(6):
    loss = nn.functional.cross_entropy(lm(x), y)
    loss.backward()
    lm_opt.step()
raise ValueError("the user's own error after training")
"""

LINE_REPORT_CELL = "%graddoctor report"

LINE_OFF_CELL = "%graddoctor off"

UNWATCHED_CELL = """\
late = nn.Sequential(nn.Linear(8, 2))
late_opt = torch.optim.SGD(late.parameters(), lr=0.01)
for x, y in batches(6):
    loss = nn.functional.cross_entropy(late(x), y)
    loss.backward()
    late_opt.step()
print("restored:", surface() == before)
"""


def text_of(cell) -> str:
    """Everything the cell shows: HTML (tags dropped), plain text, streams, tracebacks."""
    parts = []
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if "text/html" in data:
            parts.append(html.unescape(re.sub(r"<[^>]+>", " ", data["text/html"])))
        elif "text/plain" in data:
            parts.append(data["text/plain"])
        parts.append(out.get("text", ""))
        parts.extend(out.get("traceback", []))
    return re.sub(r"\s+", " ", re.sub(r"\x1b\[[0-9;]*m", "", " ".join(parts)))


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    cells = ["%load_ext graddoctor", SETUP, UNUSED_BRANCH_CELL, ATTACH_CELL, NO_ZERO_GRAD_CELL, REPORT_CELL,
             CORRECT_CELL, CRASH_CELL, SURFACE_CELL, LINE_ON_CELL, WATCHED_CELL, LINE_REPORT_CELL, LINE_OFF_CELL,
             UNWATCHED_CELL, LINE_REPORT_CELL]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in cells])
    path = tmp_path_factory.mktemp("nb") / "train.ipynb"
    nbformat.write(nb, path)
    env = {"PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1", "NO_COLOR": "1"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel is a child process: it inherits these
    try:
        client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=300, allow_errors=True,
                                         resources={"metadata": {"path": str(path.parent)}})
        client.execute()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return nb.cells


def test_cell_magic_reports_the_unused_branch_at_the_cells_line(executed):
    shown = text_of(executed[2])
    assert "GD104" in shown, shown
    assert "aux.weight" in shown and "aux.bias" in shown
    assert "Cell In[3]:7" in shown  # loss.backward(), line 7 of the cell as the notebook shows it
    assert "loss.backward()" in shown  # the line's code, as the terminal report shows it
    assert "8 optimizer steps" in shown or "stopped" in shown.lower()
    assert "cell stopped" in shown and "script stopped" not in shown


def test_watch_attached_in_one_cell_reports_a_later_cells_line(executed):
    assert text_of(executed[3]) == ""
    shown = text_of(executed[5])
    assert "GD201" in shown, shown
    assert "Cell In[5]:4" in shown  # opt.step() without zero_grad, in the cell that trained
    assert "opt.step()" in shown  # the line's code, read from the cell IPython keeps in linecache


def test_correct_cell_is_silent(executed):
    shown = text_of(executed[6])
    assert "GD" not in shown, shown
    assert "No problems found" in shown


def test_user_exception_is_reported_and_raised_again(executed):
    cell = executed[7]
    errors = [out for out in cell["outputs"] if out["output_type"] == "error"]
    assert [e["ename"] for e in errors] == ["RuntimeError"]
    shown = text_of(cell)
    assert "Cell In[8]:5" in shown, shown  # the second backward()
    assert "cell crashed" in shown


def test_line_magic_watches_the_cells_between_on_and_off(executed):
    assert text_of(executed[9]) == ""  # `on` says nothing
    watched = executed[10]
    assert [o["ename"] for o in watched["outputs"] if o["output_type"] == "error"] == ["ValueError"]
    shown = text_of(executed[11])
    assert "GD201" in shown, shown
    assert "Cell In[11]:6" in shown  # lm_opt.step() without zero_grad, in the watched cell
    assert "lm_opt.step()" in shown  # with its code


def test_line_magic_off_removes_everything_and_later_cells_are_not_watched(executed):
    assert "restored: True" in text_of(executed[13])  # hooks and patches gone although a watched cell raised
    shown = text_of(executed[14])  # the report after `off`: the watched cells only
    assert "Cell In[11]:6" in shown
    assert "Cell In[14]" not in shown
