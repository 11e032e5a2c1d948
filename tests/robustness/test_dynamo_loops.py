"""Training loops that dynamo traces run under graddoctor as under python (issue 30, pytorch#115607's
reports): the whole loop under `torch._dynamo.optimize`, a compiled model, a compiled step.

Dynamo must never trace graddoctor's own code: that printed dynamo's warnings about `sys._getframe`,
broke the user's graph and hit the recompile limit, so their loop ran uncompiled."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.robustness.as_python import fix_verify, python, watched

PROGRAM = Path(__file__).parent / "programs" / "dynamo_training_loop.py"
SOURCE = str(Path(__file__).resolve().parents[2] / "src" / "graddoctor")


@pytest.mark.parametrize("how", [fix_verify, watched], ids=["fix --verify", "watch(deep=True)"])
def test_a_loop_dynamo_traces_runs_and_compiles_as_under_python(how):
    plain = python(PROGRAM)
    assert plain.returncode == 0, plain.stderr
    ran = how(PROGRAM)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.startswith(plain.stdout), ran.stdout + ran.stderr
    said = ran.stdout + ran.stderr
    assert "internal error" not in said
    assert "recompile_limit" not in said, ran.stderr  # the user's code would fall back to eager
    assert SOURCE not in ran.stderr, ran.stderr  # dynamo traced (and warned about) our code
