"""Each conclusion decides from findings' fields: built directly, with their text reworded, and concluded.

Findings are made as their judges make them (`make` with `evidence` and `cause`), then
given messages and hints that say nothing a text search could use, or say something
misleading; what each conclusion decides must not move.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from graddoctor.conclusions import (ORDER, conclude, drop_extra_step, drop_superseded, explained_by_ignored_targets,
                                    explained_by_learning_rate, name_other_causes)
from graddoctor.finding import Finding, Severity
from graddoctor.report.report import Report
from graddoctor.rules import make
from graddoctor.rules.numerics.gd305_update_ratio_out_of_range.judge import TOO_LARGE, TOO_SMALL

STALL = {"steps": 40, "window": 10, "median_first": 9.0, "median_last": 9.01, "noise": 0.02, "z": 0.4,
         "trend": "flat", "meant_to_fall": True}
HEAD = ("The loss stayed flat over 40 optimizer steps (median 9 over the first 10, 9.01 over the last 10; "
        "step-to-step noise 0.02).")


def gd305(cause, *, hint="Reword me: nothing here says large or small.", severity=None) -> Finding:
    return make("GD305", "The steps are out of range.", hint=hint, cause=dict(cause), severity=severity,
                evidence={"update_ratio": 3.0, "lr": 1.0}, file="train.py", line=12)


def gd505() -> Finding:
    return make("GD505", "Constant.", file="train.py", line=9, evidence={"checks": 5})


def gd306(cause=None, message="Anything at all.") -> Finding:
    return make("GD306", message, evidence=dict(STALL), cause=cause, severity=Severity.INFO, file="train.py", line=14)


# --- Finding ----------------------------------------------------------------------------------

def test_a_finding_is_frozen_and_changed_only_into_a_new_one():
    f = gd505()
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.message = "changed"  # type: ignore[misc]
    g = f.adding(" More.", severity=Severity.INFO)
    assert (f.message, f.severity) == ("Constant.", Severity.WARNING)
    assert (g.message, g.severity, g.evidence) == ("Constant. More.", Severity.INFO, {"checks": 5})


def test_evidence_explained_by_and_cause_travel_through_json_with_non_finite_numbers():
    f = gd305(TOO_LARGE).with_(evidence={"update_ratio": math.inf, "lr": 1.0, "loss": math.nan},
                               explained_by=("GD303",))
    data = f.to_json()
    assert data["evidence"] == {"update_ratio": "inf", "lr": 1.0, "loss": "nan"}
    assert data["explained_by"] == ["GD303"] and data["cause"] == {"lr": "too_large"}
    back = Finding.from_json(data)
    assert back.evidence["update_ratio"] == math.inf and math.isnan(back.evidence["loss"])
    assert (back.explained_by, back.cause) == (("GD303",), {"lr": "too_large"})
    # every finding carries evidence and explained_by; cause only when set
    plain = gd505().to_json()
    assert plain["explained_by"] == [] and "cause" not in plain
    Report(command="watch", findings=[f]).to_json()  # strict JSON: no NaN slipped through


def test_the_report_schema_allows_the_new_fields():
    jsonschema = pytest.importorskip("jsonschema")
    import json
    from importlib.resources import files

    schema = json.loads(files("graddoctor.report").joinpath("schema.json").read_text())
    f = gd305(TOO_LARGE).with_(evidence={"update_ratio": math.inf}, explained_by=("GD303",))
    jsonschema.validate(json.loads(Report(command="watch", findings=[f]).to_json()), schema)


# --- GD505 after the learning rate ------------------------------------------------------------

def test_gd505_is_explained_by_a_gd305_whose_cause_is_a_too_large_rate_whatever_its_hint_says():
    cause, constant = gd305(TOO_LARGE), gd505()
    out = explained_by_learning_rate([cause, constant])
    demoted = out[1]
    assert demoted.severity == Severity.INFO and demoted.explained_by == ("GD305",)
    assert demoted.message == ("Constant. This is most likely a consequence of the learning rate (GD305 "
                               "update-ratio-out-of-range at train.py:12): steps that large push units out of "
                               "their working range. Fix that first.")
    assert constant.severity == Severity.WARNING and out[0] is cause  # the inputs are left as they were


def test_a_too_small_rate_explains_no_constant_output_even_with_the_old_too_large_hint():
    # the hint prefix the old `too_large` read: the cause says small, so nothing is demoted
    small = gd305(TOO_SMALL, hint="Lower the learning rate below 1 (try 1e-1), or clip the gradient norm.")
    out = explained_by_learning_rate([small, gd505()])
    assert out[1].severity == Severity.WARNING and out[1].explained_by == ()


def test_an_information_only_gd305_explains_nothing():
    out = explained_by_learning_rate([gd305(TOO_LARGE, severity=Severity.INFO), gd505()])
    assert out[1].severity == Severity.WARNING


# --- GD306 names the other causes -------------------------------------------------------------

def test_gd306_without_a_cause_of_its_own_names_the_other_findings_and_warns():
    scheduler = make("GD205", "Reworded.", file="train.py", line=20)
    out = name_other_causes([gd306(), scheduler])
    stalled = out[0]
    assert stalled.severity == Severity.WARNING and stalled.explained_by == ("GD205",)
    assert stalled.message == (f"{HEAD} Other findings of this report explain it: GD205 scheduler-misuse at "
                               "train.py:20. Fix those first; if the loss still does not fall, look at the data, "
                               "the labels and the loss function.")


def test_gd306_names_what_its_cause_does_not_already_name_whatever_its_message_mentions():
    # its message mentions GD205 and not GD305; its cause names GD305: GD205 is named, GD305 is not
    stalled = gd306(cause={"found": ["GD305"]}, message="Mentions GD205 in passing.")
    out = name_other_causes([stalled, gd305(TOO_LARGE), make("GD205", "x", file="train.py", line=20)])
    assert out[0].message == "Mentions GD205 in passing. Also reported: GD205 scheduler-misuse at train.py:20."
    assert out[0].explained_by == ("GD205",) and out[0].severity == Severity.INFO


def test_a_loss_not_meant_to_fall_stays_information():
    stalled = gd306().with_(evidence={**STALL, "meant_to_fall": False})
    out = name_other_causes([stalled, make("GD205", "x")])
    assert out[0].severity == Severity.INFO and out[0].explained_by == ("GD205",)


def test_findings_that_do_not_stall_a_loss_are_not_named():
    out = name_other_causes([gd306(), make("GD207", "kept alive"), make("GD211", "eval")])
    assert out[0] == gd306()


# --- superseded subjects ----------------------------------------------------------------------

def test_superseded_subjects_move_by_code_and_subjects_not_by_message():
    generic = make("GD104", "GD401 is mentioned here but decides nothing.", subjects=["a", "b"])
    specific = make("GD401", "no subjects named in words", subjects=["a"])
    out = drop_superseded([generic, specific])
    assert out[0].subjects == ["b"] and generic.subjects == ["a", "b"]
    assert out[0].message.endswith(" Of these, a is reported under GD401.")
    assert drop_superseded([generic, make("GD401", "all", subjects=["a", "b"])])[0].code == "GD401"


# --- one cause at one step line ----------------------------------------------------------------

def test_gd201_at_the_line_of_a_gd213_is_dropped_by_code_and_line_not_by_message():
    wrong = make("GD213", "GD201 is mentioned here but decides nothing.", file="gan.py", line=26)
    extra = make("GD201", "stepped again", file="gan.py", line=26)
    elsewhere = make("GD201", "stepped again", file="gan.py", line=40)
    assert drop_extra_step([wrong, extra, elsewhere]) == [wrong, elsewhere]
    assert drop_extra_step([extra, elsewhere]) == [extra, elsewhere]


# --- the order --------------------------------------------------------------------------------

def test_conclude_demotes_gd505_before_gd306_counts_the_warnings():
    assert ORDER == (drop_superseded, explained_by_learning_rate, drop_extra_step, explained_by_ignored_targets,
                     name_other_causes)
    out = conclude([gd306(), gd305(TOO_LARGE), gd505()])
    stalled = next(f for f in out if f.code == "GD306")
    assert stalled.explained_by == ("GD305",)  # GD505 is information by then, and not a cause named
    assert next(f for f in out if f.code == "GD505").explained_by == ("GD305",)


# --- GD507 explains a NaN loss and a run that learns nothing -------------------------------------

def _gd507(severity) -> Finding:
    return make("GD507", "Targets.", severity=severity, file="train.py", line=20,
                evidence={"batches_checked": 8, "batches_all_ignored": 8 if severity == Severity.ERROR else 2})


@pytest.mark.parametrize("severity", [Severity.ERROR, Severity.WARNING])
def test_a_nan_loss_at_the_ignored_targets_line_is_explained_by_gd507(severity):
    nan = make("GD301", "Reworded.", file="train.py", line=20, evidence={"step": 1})
    elsewhere = make("GD301", "Reworded.", file="train.py", line=31, evidence={"step": 1})
    zero = make("GD111", "Reworded.", file="train.py", line=5, subjects=["model.head.weight"])
    out = {(f.code, f.line): f for f in conclude([nan, elsewhere, zero, _gd507(severity)])}
    assert out[("GD301", 20)].severity == Severity.INFO and out[("GD301", 20)].explained_by == ("GD507",)
    assert out[("GD301", 31)].severity == Severity.ERROR
    # zero gradients are the consequence only when no batch kept a target
    assert (out[("GD111", 5)].severity == Severity.INFO) == (severity == Severity.ERROR)
