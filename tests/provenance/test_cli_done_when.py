"""The issue's acceptance checks, through the real `graddoctor run` command."""

from __future__ import annotations

import textwrap

import pytest

from tests.provenance.conftest import line_of
from tests.provenance.test_cut_location import MODEL, TRAIN
from tests.provenance.test_runtime_errors import INPLACE, RNN


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_encoder_under_no_grad_in_another_modules_forward(graddoctor_cli):
    (graddoctor_cli.path / "model.py").write_text(textwrap.dedent(MODEL))
    ran = graddoctor_cli("run", "train.py", script=TRAIN)
    assert ran.returncode == 1, ran.stderr
    # Grad mode off is GD110's (SPEC): at the line that turned it off, the computation related.
    found = ran.finding("GD110")
    assert "GD104" not in ran.codes()
    assert (found["file"], found["line"]) == ("model.py", line_of(MODEL, "with torch.no_grad()"))
    assert {"file": "model.py", "line": line_of(MODEL, "feats = self.encoder(x)"),
            "note": "computed without gradient recording here"} in found["related"]
    assert "model.py:" + str(line_of(MODEL, "feats = self.encoder(x)")) in ran.stdout


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_rnn_without_detach_and_inplace_relu(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=RNN)
    assert ran.returncode == 1
    assert ran.report["status"] == "crashed"
    found = ran.finding("GD107")
    assert found["line"] == line_of(RNN, "hidden = rnn(x, hidden)")
    assert "recorder.py" not in ran.stderr and "overrides.py" not in ran.stderr  # our frames stay hidden

    ran = graddoctor_cli("run", "train.py", name="train.py", script=INPLACE)
    found = ran.finding("GD108")
    assert found["line"] == line_of(INPLACE, "act.relu_()")
