"""`graddoctor demo`: the gallery is the installation check, so it must come out right."""

from __future__ import annotations

import re

from graddoctor.demo.programs import gallery


def test_every_seed_scenario_has_a_program():
    codes = {code for program in gallery() for code in program.codes}
    seeds = {"GD101", "GD102", "GD103", "GD104", "GD105", "GD107", "GD109", "GD110", "GD201", "GD202",
             "GD203", "GD204", "GD205", "GD206", "GD207", "GD301", "GD304", "GD305", "GD306"}
    assert seeds <= codes
    assert "GD106" in codes


def test_list(graddoctor_cli):
    ran = graddoctor_cli("demo", "--list", json_report=False)
    assert ran.returncode == 0
    assert len(ran.stdout.strip().splitlines()) == len(gallery())


def test_the_whole_gallery_is_diagnosed_as_expected(graddoctor_cli):
    ran = graddoctor_cli("demo", json_report=False, timeout=600)
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    assert re.search(rf"^{len(gallery())} of {len(gallery())} diagnosed as expected", ran.stdout, re.M)
    # each diagnosis is shown with the user's line
    assert "gd104_unused_branch.py:25:5" in ran.stdout


def test_unknown_program_is_a_usage_error(graddoctor_cli):
    ran = graddoctor_cli("demo", "nope", json_report=False)
    assert ran.returncode == 2 and "no demo program 'nope'" in ran.stderr


def test_a_backward_error_shows_the_users_frames_and_the_forward_line(graddoctor_cli):
    ran = graddoctor_cli("demo", "gd102", "gd110", json_report=False, timeout=300)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    # the user's backward() line, torch's frames folded, and where the failing value was computed
    assert 'File "gd102_argmax_cut.py", line 15, in <module>\n    loss.backward()\n  [' in ran.stdout
    assert "inside libraries]\nRuntimeError: element 0 of tensors" in ran.stdout
    assert "comes from gd102_argmax_cut.py:12 (GD102):\n    predicted = logits.argmax(dim=1)" in ran.stdout
    assert "comes from gd110_no_grad_forward.py:" in ran.stdout
    assert "site-packages" not in ran.stdout and "torch/autograd" not in ran.stdout
