"""Rank 0's merge, the rank context, the DDP error pattern, and the JSON a merged report gives."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import torch

import graddoctor
from graddoctor.distributed.context import from_env
from graddoctor.observers.ddp import fingerprint
from graddoctor.runner.gather import RankResult, merge
from graddoctor.rules.frameworks.gd402_ddp_replicas_diverged.judge import compact, replicas_diverged
from graddoctor.report.report import Report
from graddoctor.rules import make

SCHEMA = json.loads((Path(graddoctor.__file__).parent / "report" / "schema.json").read_text())


def gd104(subjects, line=9):
    return make("GD104", "no gradient", file="train.py", line=line, subjects=subjects)


def own(findings=(), status="completed"):
    return Report(command="run", target="train.py", findings=list(findings), layers=[], status=status,
                  exception=None, steps_observed=3)


def result(rank, findings=(), status="completed", code=0, samples=()):
    return RankResult(rank, list(findings), status, None, code, list(samples))


def sample(step, prints, line=12):
    return {"step": step, "file": "train.py", "line": line, "prints": prints}


def test_other_ranks_findings_carry_their_rank_and_repeats_are_dropped():
    answers = {0: result(0, [gd104(["a"])]), 1: result(1, [gd104(["a"]), gd104(["b"], line=11)], code=1)}
    merged, code = merge(own([gd104(["a"])]), answers, 2, "warning", 1)
    assert [(f.subjects, f.rank) for f in merged.findings] == [(["a"], None), (["b"], 1)]
    assert code == 1
    document = json.loads(merged.to_json())
    jsonschema.validate(document, SCHEMA)
    assert document["findings"][1]["rank"] == 1 and "rank" not in document["findings"][0]


def test_clean_ranks_exit_0_and_a_silent_rank_fails_the_launch_with_a_note():
    merged, code = merge(own(), {0: result(0), 1: result(1)}, 2, "warning", 0)
    assert code == 0 and merged.notes == []
    merged, code = merge(own(), {0: result(0)}, 3, "warning", 0)
    assert code == 1 and merged.notes[0].startswith("Ranks 1 and 2 did not report: ")
    merged, _ = merge(own(), {0: result(0), 2: result(2)}, 3, "warning", 0)
    assert merged.notes[0].startswith("Rank 1 did not report: ") and "its findings" in merged.notes[0]
    merged, _ = merge(own(), {0: result(0)}, 1000, "warning", 0)
    assert merged.notes[0].startswith("Ranks 1, 2, 3 and 996 more did not report: ")


def test_a_crash_on_another_rank_marks_the_run_crashed_and_internal_errors_win():
    merged, code = merge(own(), {0: result(0), 1: result(1, status="crashed", code=1)}, 2, "never", 0)
    assert merged.status == "crashed" and code == 1
    _, code = merge(own(), {0: result(0), 1: result(1, code=3)}, 2, "warning", 1)
    assert code == 3


def test_identical_fingerprints_are_silent_and_the_first_difference_is_gd402():
    same = {0: [sample(1, {"w": 5, "b": 7})], 1: [sample(1, {"w": 5, "b": 7})]}
    assert replicas_diverged(same) is None
    apart = {
        0: [sample(1, {"w": 5, "b": 7}), sample(2, {"w": 6, "b": 8})],
        1: [sample(1, {"w": 5, "b": 7}), sample(2, {"w": 9, "b": 8})],
    }
    finding = replicas_diverged(apart)
    assert (finding.code, finding.step, finding.subjects, finding.line) == ("GD402", 2, ["w"], 12)
    assert finding.message.startswith("After optimizer step 2, w (1 parameter) differs between rank 0 and rank 1: ")


def test_gd402_names_the_ranks_that_differ_in_plain_words():
    prints = {0: {"w": 5, "b": 7}, 1: {"w": 5, "b": 7}, 2: {"w": 6, "b": 7}, 3: {"w": 5, "b": 9}}
    finding = replicas_diverged({r: [sample(1, p)] for r, p in prints.items()})
    assert "w and b (2 parameters) differ between rank 0 and ranks 2 and 3: the replicas" in finding.message


def test_other_ranks_send_one_digest_per_sample_and_are_asked_for_their_fingerprints_only_when_it_differs():
    prints = {f"layer{i}.weight": 1000 + i for i in range(500)}
    sent = compact(sample(4, prints))
    assert "prints" not in sent and len(json.dumps(sent)) < 100  # whatever the number of parameters
    assert compact(sample(4, dict(prints)))["digest"] == sent["digest"]
    drifted = dict(prints, **{"layer7.weight": 0})
    samples = {0: [sample(4, prints)], 1: [compact(sample(4, prints))], 2: [compact(sample(4, drifted))]}
    asked = []

    def fetch(rank, step):
        asked.append((rank, step))
        return drifted

    finding = replicas_diverged(samples, fetch)
    assert asked == [(2, 4)]  # only the rank whose digest differs, only for that step
    assert (finding.step, finding.subjects) == (4, ["layer7.weight"])
    assert "layer7.weight (1 parameter) differs between rank 0 and rank 2: " in finding.message
    # a rank that never sends its fingerprints (gone since): still named, its parameters not
    finding = replicas_diverged(samples, lambda rank, step: None)
    assert finding.subjects == [] and "the parameters differ between rank 0 and rank 2: " in finding.message
    assert replicas_diverged({0: [sample(4, prints)], 1: [compact(sample(4, prints))]}, fetch) is None


def test_fingerprint_is_exact_for_equal_bits_and_sees_a_one_bit_change():
    t = torch.randn(1000)
    assert fingerprint(t) == fingerprint(t.clone())
    changed = t.clone()
    changed[500] = torch.nextafter(changed[500], torch.tensor(float("inf")))
    assert fingerprint(changed) != fingerprint(t)
    assert fingerprint(torch.randn(3, dtype=torch.float64)) != fingerprint(torch.zeros(3, dtype=torch.float64))


@pytest.mark.parametrize(
    "env, expected",
    [
        ({}, None),
        ({"RANK": "0", "WORLD_SIZE": "1"}, None),
        ({"RANK": "1", "WORLD_SIZE": "2", "MASTER_PORT": "29500", "TORCHELASTIC_USE_AGENT_STORE": "True",
          "TORCHELASTIC_RUN_ID": "abc"}, (1, 2, "abc/0", ("localhost", 29500))),
        ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "1"}, (0, 2, "h:1/0", None)),
    ],
)
def test_rank_context_from_torchrun_environment(env, expected):
    ctx = from_env(env)
    assert (ctx if ctx is None else (ctx.rank, ctx.world_size, ctx.run_key, ctx.agent_store)) == expected


def test_explain_names_ddp_unused_parameters_for_the_reduction_error():
    message = (
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
        "This error indicates that your module has parameters that were not used in producing loss."
    )
    (finding,) = graddoctor.explain(message)
    assert finding.code == "GD401" and "find_unused_parameters=True" in finding.hint
    other = graddoctor.explain("RuntimeError: Expected all tensors to be on the same device")
    assert all(f.code != "GD401" for f in other)


def test_replicas_named_differently_by_their_ranks_scripts_but_equal_are_not_gd402():
    """Names come from each rank's own variables; the replicas are the same parameters, in DDP's order."""
    same = {0: [sample(1, {"model.w": 5, "model.b": 7})], 1: [compact(sample(1, {"net.w": 5, "net.b": 7}))]}
    assert replicas_diverged(same) is None
