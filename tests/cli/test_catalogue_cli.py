"""`graddoctor rules`, the catalogue against SPEC, and the report schema."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import torch

import graddoctor
from graddoctor.rules import all_rules

SPEC = Path(__file__).resolve().parents[3] / "shared" / "SPEC.md"
SCHEMA = json.loads((Path(graddoctor.__file__).parent / "report" / "schema.json").read_text())


def test_catalogue_matches_the_spec_tables():
    if not SPEC.exists():  # the contract lives beside the checkout
        import pytest

        pytest.skip("shared/SPEC.md is not beside this checkout")
    rows = re.findall(r"^\| (GD\d{3}) \| ([a-z-]+) \| (error|warning|info) \| ([RS ]+) \|", SPEC.read_text(), re.M)
    assert rows, "no catalogue rows found in SPEC.md"
    ours = {r.code: r for r in all_rules()}
    for code, name, severity, detected in rows:
        rule = ours[code]
        assert (rule.name, str(rule.severity), rule.detected) == (name, severity, detected.replace(" ", "")), code
    # Codes beyond SPEC's tables are allowed ("extra codes are yours to decide"); each has its page
    # (tests/test_rules_docs.py). GD000 (unreadable file) and GD001 (unused noqa) are two of them.
    assert {"GD000", "GD001"} <= set(ours) - {code for code, *_ in rows}


def test_rules_lists_every_code_and_shows_one(graddoctor_cli):
    listed = graddoctor_cli("rules", json_report=False)
    assert listed.returncode == 0
    codes = re.findall(r"^(GD\d{3})\s", listed.stdout, re.M)
    assert codes == [r.code for r in all_rules()]
    one = graddoctor_cli("rules", "GD104", json_report=False)
    assert one.returncode == 0
    assert one.stdout.startswith("GD104 parameter-without-gradient (error, runtime)")
    assert "## Why is this bad?" in one.stdout and "Fix: " in one.stdout
    by_name = graddoctor_cli("rules", "grad-mode-off", json_report=False)
    assert by_name.stdout.startswith("GD110 grad-mode-off")
    missing = graddoctor_cli("rules", "GD999", json_report=False)
    assert missing.returncode == 2 and "no rule 'GD999'" in missing.stderr


def test_diagnose_report_is_schema_valid_and_round_trips():
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 1))
    report = graddoctor.diagnose(model[1](torch.randn(2, 3)).mean(), model)
    data = json.loads(report.to_json())
    jsonschema.validate(data, SCHEMA)
    assert [graddoctor.Finding.from_json(f) for f in data["findings"]] == report.findings


def test_public_api_is_exactly_all_and_every_name_resolves():
    import graddoctor as gd

    exported = set(gd.__all__) - {"__version__"}
    assert exported == set(gd._EXPORTS)
    for name in gd.__all__:
        assert getattr(gd, name) is not None, name
    assert callable(gd.watch) and callable(gd.explain) and callable(gd.diagnose)


def test_a_more_specific_finding_takes_its_subjects_from_the_generic_one():
    from graddoctor.rules import make
    from graddoctor.conclusions import drop_superseded

    generic = make("GD104", "no gradient", subjects=["aux.weight", "aux.bias", "other.weight"])
    specific = make("GD401", "unused under DDP", subjects=["aux.weight", "aux.bias"])
    kept = drop_superseded([generic, specific])
    # Findings are frozen: the generic one kept is a new finding with the subjects left
    assert [f.code for f in kept] == ["GD104", "GD401"] and kept[1] is specific
    assert kept[0].subjects == ["other.weight"]
    # its message named all three: it says where the other two went
    assert kept[0].message == "no gradient Of these, aux.weight and aux.bias are reported under GD401."
    only = make("GD104", "no gradient", subjects=["aux.weight"])
    assert drop_superseded([only, specific]) == [specific]
    assert drop_superseded([make("GD104", "no gradient", subjects=["x"])])[0].subjects == ["x"]


def test_help_explains_the_detected_column_and_every_option(graddoctor_cli):
    rules = graddoctor_cli("rules", "--help", json_report=False)
    assert "R: at runtime" in rules.stdout and "S: statically" in rules.stdout and "RS: both" in rules.stdout
    # options that printed as a bare flag now say what they do
    explain = " ".join(graddoctor_cli("explain", "--help", json_report=False).stdout.split())
    assert "--format {text,json} text (default), or json" in explain, explain
    demo = " ".join(graddoctor_cli("demo", "--help", json_report=False).stdout.split())
    assert "--jobs JOBS, -j JOBS programs run at once" in demo, demo
