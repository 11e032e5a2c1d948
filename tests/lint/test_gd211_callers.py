"""Lint GD211 follows an evaluation helper's callers: `eval()` set before the outer call counts."""

from __future__ import annotations

from pathlib import Path

from graddoctor.lint import lint_source

PROGRAM = (Path(__file__).resolve().parents[1] / "corpus" / "programs" / "seq2seq_eval_by_caller.py").read_text()


def _codes(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in lint_source(text, "train.py").findings]


def test_eval_before_the_outer_call_is_seen():
    assert _codes(PROGRAM) == []


def test_without_eval_before_the_outer_call_it_still_fires():
    broken = PROGRAM.replace("encoder.eval()\ndecoder.eval()\n", "")
    assert broken != PROGRAM
    assert _codes(broken) == [("GD211", 52), ("GD211", 53)]


def test_one_caller_without_eval_is_enough_to_fire():
    twice = PROGRAM.replace("encoder.eval()\ndecoder.eval()\nevaluate_randomly()\n",
                            "evaluate_randomly()\nencoder.eval()\ndecoder.eval()\nevaluate_randomly()\n")
    assert twice != PROGRAM
    assert [code for code, _ in _codes(twice)] == ["GD211", "GD211"]
