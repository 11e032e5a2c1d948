"""A real run's report carries the structured fields its conclusions read (SPEC: "Changes of this round").

SGD at lr=1.0 on a constant regression target (tests/numerics/test_gd305_early_steps.py):
GD305 measures the first steps and says the rate is too large, as data; GD505's constant
output is explained by it, as data; the JSON says both.
"""

from __future__ import annotations

import json

from tests.numerics.test_gd305_early_steps import CONSTANT_TARGET, MLP
from tests.provenance.conftest import run_script  # noqa: F401  (the in-process `graddoctor run`)


def test_the_learning_rate_finding_and_the_constant_output_it_explains_carry_their_fields(run_script):
    ran = run_script({"train.py": CONSTANT_TARGET.format(model=MLP, lr="1.0")})
    [lr] = [f for f in ran.findings if f.code == "GD305"]
    [constant] = [f for f in ran.findings if f.code == "GD505"]
    assert lr.cause == {"lr": "too_large"} and lr.evidence["lr"] == 1.0 and lr.evidence["harmed"] is True
    assert lr.evidence["update_ratio"] > 0
    assert constant.explained_by == ("GD305",) and constant.evidence["checks"] >= 1
    document = json.loads(ran.report.to_json())
    by_code = {f["code"]: f for f in document["findings"]}
    assert by_code["GD505"]["explained_by"] == ["GD305"] and by_code["GD305"]["cause"] == {"lr": "too_large"}
    assert by_code["GD305"]["evidence"]["lr"] == 1.0
