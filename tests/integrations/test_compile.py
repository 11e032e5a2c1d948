"""torch.compile under graddoctor: the compiled model runs exactly as without it.

Real inductor on CPU. A compiled GPT-shaped model (loss inside forward, as in
nanoGPT) is trained plain, under `watch()` and under `watch(deep=True)`, each
from a fresh dynamo cache: dynamo's own counters (graph breaks, frames
compiled, graphs made) and the trained parameters must be the same, and no
warning may appear.
"""

from __future__ import annotations

import json
import warnings

import pytest
import torch
from torch._dynamo.utils import counters

import graddoctor
from graddoctor.graph.naming import ModelIndex
from tests.integrations.programs.compiled_gpt import TinyGPT, batches

pytestmark = pytest.mark.slow

STEPS = 6  # past step 2, where the GD207 sampler first opens its TorchFunctionMode


def line_of(marker: str) -> int:
    with open(__file__, encoding="utf-8") as handle:
        return next(n for n, text in enumerate(handle, 1) if text.rstrip().endswith(f"# <- {marker}"))


def dynamo_counts() -> dict:
    return {kind: dict(counters[kind]) for kind in ("graph_break", "resumes", "frames", "stats")}


def train(how: str, watched: dict | None):
    """Train a compiled TinyGPT; returns (dynamo counts, parameters, report or None)."""
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    # One thread: inductor's CPU kernels for the embedding's backward add rows from several
    # threads in a run-dependent order, so two plain runs can already differ in the last bit.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _train(how, watched)
    finally:
        torch.set_num_threads(threads)


def _train(how: str, watched: dict | None):
    model = TinyGPT()
    if how == "torch.compile":
        step_model = torch.compile(model)
    else:
        model.compile()
        step_model = model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    watch = graddoctor.watch(step_model, opt, **watched) if watched is not None else None
    if watch is not None:
        watch.attach()
    try:
        for idx, targets in batches(STEPS):
            opt.zero_grad()
            loss = step_model(idx, targets)
            loss.backward()
            opt.step()
    finally:
        if watch is not None:
            watch.detach()
    params = {name: p.detach().clone() for name, p in model.named_parameters()}
    return dynamo_counts(), params, watch.report() if watch is not None else None


@pytest.mark.parametrize("how, watched", [("torch.compile", {"deep": True}), ("model.compile", {})])
def test_same_graphs_and_parameters_as_without_graddoctor(how, watched):
    with warnings.catch_warnings(record=True) as plain_warnings:
        warnings.simplefilter("always")
        plain_counts, plain_params, _ = train(how, None)
    with warnings.catch_warnings(record=True) as watched_warnings:
        warnings.simplefilter("always")
        counts, params, report = train(how, watched)
    # torch warns of its own deprecations while compiling; graddoctor may add none (dynamo's
    # "does not know how to trace the builtin sys._getframe" was one).
    assert {str(w.message) for w in watched_warnings} <= {str(w.message) for w in plain_warnings}
    assert plain_counts["graph_break"] == {} and plain_counts["stats"]["unique_graphs"] >= 1
    assert counts == plain_counts
    assert params.keys() == plain_params.keys()
    for name in params:
        assert torch.equal(params[name], plain_params[name]), name
    assert report.ok, [str(f) for f in report.findings]
    assert report.steps_observed == STEPS


def test_compiled_wrapper_names_parameters_as_the_user_does():
    model = TinyGPT()
    compiled = torch.compile(model)
    index = ModelIndex({"model": compiled})
    assert index.name(model.lm_head.weight) == "model.lm_head.weight"
    assert index.name(model.blocks[1].qkv.bias) == "model.blocks.1.qkv.bias"


COMPILED_BUGS = """
import json
import torch
from torch import nn
from torch._dynamo.utils import counters

torch.manual_seed(0)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.unused = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2))
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.encoder(x))

model = torch.compile(Net())
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
for step in range(8):
    loss = nn.functional.cross_entropy(model(torch.randn(16, 8)), torch.randint(0, 2, (16,)))
    loss.backward()
    optimizer.step()
with open("dynamo.json", "w") as out:
    json.dump({"graph_break": dict(counters["graph_break"]), "stats": dict(counters["stats"])}, out)
"""


def test_run_names_user_lines_in_a_compiled_model_without_breaking_its_graph(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=COMPILED_BUGS, timeout=600)
    assert ran.report["status"] == "completed", ran.stdout + ran.stderr
    gd104 = ran.finding("GD104")
    assert gd104["subjects"] == ["model.unused.0.weight", "model.unused.0.bias", "model.unused.2.weight",
                                  "model.unused.2.bias"]
    assert (gd104["file"], gd104["line"]) == ("train.py", 23)  # loss.backward()
    gd201 = ran.finding("GD201")
    assert (gd201["file"], gd201["line"]) == ("train.py", 24)  # optimizer.step(), with no zero_grad
    dynamo = json.loads((graddoctor_cli.path / "dynamo.json").read_text())
    # The same graph as `python train.py` makes: one graph, no break, and no dynamo warning.
    assert dynamo == {"graph_break": {}, "stats": {"calls_captured": 3, "unique_graphs": 1}}
    assert "Dynamo" not in ran.stderr and "_getframe" not in ran.stderr
    assert "deep mode does not see inside" in " ".join(ran.stdout.split())  # the report says what it missed


class Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x)


@pytest.mark.parametrize("scale", [50.0, 1.0])  # 50: sigmoid saturates, log(0) = -inf; 1: the near miss
def test_nan_loss_from_a_compiled_model_is_reported_at_the_users_line(scale):
    torch.manual_seed(0)
    model = torch.compile(Classifier())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with graddoctor.watch(model, optimizer, deep=True) as watch:
        for _ in range(6):
            x = torch.randn(32, 8) * scale
            y = torch.randint(0, 2, (32, 1)).float()
            p = torch.sigmoid(model(x))
            loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()  # <- log
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    report = watch.report()
    codes = {f.code: f for f in report.findings}
    if scale == 1.0:
        assert not codes, [str(f) for f in codes.values()]
        assert report.notes == []
        return
    assert any("deep mode does not see inside" in note for note in report.notes)
    assert "GD301" in codes
    assert codes["GD301"].line == line_of("log")


def test_watch_attached_after_compiling_reuses_the_compiled_graph():
    """The model compiles before watch() patches F.cross_entropy (called inside its forward):
    dynamo, which guards on the functions it traced, must still find its graph valid."""
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    model = TinyGPT()
    compiled = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = list(batches(6))
    for idx, targets in data[:2]:
        opt.zero_grad()
        compiled(idx, targets).backward()
        opt.step()
    before = dynamo_counts()
    with graddoctor.watch(compiled, opt, deep=True) as watch:
        for idx, targets in data[2:]:
            opt.zero_grad()
            compiled(idx, targets).backward()
            opt.step()
    assert dynamo_counts() == before
    assert watch.report().ok
