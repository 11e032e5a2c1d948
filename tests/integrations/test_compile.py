"""torch.compile under graddoctor: the compiled model runs exactly as without it.

Real inductor on CPU. A compiled GPT-shaped model (loss inside forward, as in
nanoGPT) is trained plain, under `watch()` and under `watch(deep=True)`, each
from a fresh dynamo cache: dynamo's own counters (graph breaks, frames
compiled, graphs made) and the trained parameters must be the same, and no
warning may appear.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch._dynamo.utils import counters

import graddoctor
from graddoctor.graph.naming import ModelIndex
from tests.integrations.programs.compiled_gpt import TinyGPT, batches

pytestmark = pytest.mark.slow

STEPS = 6  # past step 2, where the GD207 sampler first opens its TorchFunctionMode


def dynamo_counts() -> dict:
    return {kind: dict(counters[kind]) for kind in ("graph_break", "resumes", "frames", "stats")}


def train(how: str, watched: dict | None):
    """Train a compiled TinyGPT; returns (dynamo counts, parameters, report or None)."""
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
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
    assert index.name(model.lm_head.weight) == "lm_head.weight"
    assert index.name(model.blocks[1].qkv.bias) == "blocks.1.qkv.bias"
