"""graddoctor's own failures on the user's hot path are recorded, and the user's run goes on.

Each test breaks one piece of our bookkeeping that used to swallow its error silently
(`except Exception: pass`) and checks both halves: the user's call still does what it
does without graddoctor, and `session.internal_errors` says what failed, with the
traceback, as the report shows it ("... failed:\\nTraceback ...").
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

import graddoctor
from graddoctor.internal import guarded, known_models, record_internal_error
from graddoctor.runner.build_report import INTERNAL_NOTE


class _Session:
    def __init__(self) -> None:
        self.internal_errors: list[str] = []

    def models(self):
        raise KeyError("broken naming")


def test_the_helpers_record_what_failed_with_its_traceback():
    one, two = _Session(), _Session()
    try:
        raise ValueError("boom")
    except ValueError:
        record_internal_error(one, "our step")
    with guarded([one, two], "our hook"):
        raise RuntimeError("bang")
    assert one.internal_errors[0].startswith("our step failed:\nTraceback")
    assert "ValueError: boom" in one.internal_errors[0]
    assert one.internal_errors[1].startswith("our hook failed:\n") and "RuntimeError: bang" in one.internal_errors[1]
    assert two.internal_errors == one.internal_errors[1:]


def test_the_same_failure_again_is_recorded_once():
    session = _Session()
    for _ in range(3):
        with guarded(session, "our hook"):
            raise RuntimeError("bang")
    assert len(session.internal_errors) == 1


def test_guarded_lets_the_users_interrupts_through():
    session = _Session()
    with pytest.raises(KeyboardInterrupt), guarded(session, "our hook"):
        raise KeyboardInterrupt
    assert not session.internal_errors


def test_known_models_records_a_failure_to_name_the_models():
    session = _Session()
    assert known_models(session) == {}
    assert "naming the models failed" in session.internal_errors[0] and "broken naming" in session.internal_errors[0]


def _train(model, optimizer, steps: int = 2) -> torch.Tensor:
    x = torch.randn(8, 4)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
    return model.weight.detach().clone()


def test_a_failure_to_record_the_line_of_train_is_recorded_and_train_still_works(monkeypatch):
    from graddoctor.loop import train_modes

    def broken(frame=None):
        raise LookupError("our bug")

    monkeypatch.setattr(train_modes, "user_location", broken)
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with graddoctor.watch(model, optimizer) as w:
        model.eval()
        model.train()
        _train(model, optimizer)
    assert model.training
    errors = [e for e in w.session.internal_errors if "recording the line of train() failed" in e]
    assert errors and "LookupError: our bug" in errors[0]
    notes = [n for n in w.report().notes if n.startswith(INTERNAL_NOTE)]
    assert any("LookupError: our bug" in n for n in notes)


def test_a_failure_to_place_a_warning_is_recorded_and_the_warning_still_shown(monkeypatch):
    from graddoctor.session import warnsite

    def broken(msg, start):
        raise LookupError("our bug")

    monkeypatch.setattr(warnsite, "relocate", broken)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with graddoctor.watch(model, optimizer) as w:
            warnings.warn("the user's own warning", UserWarning)
    assert [str(c.message) for c in caught if "the user's own warning" in str(c.message)]
    assert any("placing a warning at the user's line failed" in e for e in w.session.internal_errors)


def test_results_are_bit_identical_when_our_bookkeeping_fails(monkeypatch):
    from graddoctor.loop import train_modes

    def run(watched: bool) -> torch.Tensor:
        torch.manual_seed(0)
        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        if not watched:
            model.train()
            return _train(model, optimizer, steps=3)
        with graddoctor.watch(model, optimizer):
            model.train()
            return _train(model, optimizer, steps=3)

    plain = run(False)
    monkeypatch.setattr(train_modes, "user_location", lambda frame=None: 1 / 0)
    assert torch.equal(run(True), plain)
