"""The iteration fingerprint (session/rhythm.py): once the loop's iteration has repeated three times,
the observers that declared they can miss repeated iterations sleep; anything that differs brings
every observer back at once, resynced; and a bug that starts late in a long run is found at the
same step, with the same message, as with the fingerprint off."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn import functional as F

import graddoctor
from graddoctor.session.observer import Observer


class Probe(Observer):
    """Says it can miss any number of repeated iterations; records what it is shown."""

    name = "probe"

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []
        self.resyncs: list[tuple[int, list[str]]] = []

    def wake_in(self, rhythm):
        return None

    def resync(self, skipped, prefix, rhythm) -> None:
        self.resyncs.append((skipped, [key[0] for key in prefix]))

    def before_backward(self, event) -> None:
        self.seen.append(("backward", event.step))

    def before_step(self, event) -> None:
        self.seen.append(("step", event.step))

    def on_call(self, event) -> None:
        self.seen.append((event.kind, event.step))

    def steps(self) -> list[int]:
        return [step for kind, step in self.seen if kind == "step"]


def _mlp(seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 1))


def _watched(model, opt, probe: Probe | None = None, fingerprint: bool = True):
    w = graddoctor.watch(model, opt)
    w.session.rhythm.enabled = fingerprint
    if probe is not None:
        w.session.observers.append(probe)
    return w


def _batch(step: int):
    g = torch.Generator().manual_seed(step)
    return torch.randn(16, 8, generator=g), torch.randn(16, 1, generator=g)


# --- the steady rhythm ---------------------------------------------------------------------------


def test_repeated_iterations_skip_the_observers_that_can_miss_them():
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    probe = Probe()
    w = _watched(model, opt, probe)
    with w:
        for step in range(1, 21):
            x, y = _batch(step)
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
        rhythm = w.session.rhythm
        assert rhythm.steady
        assert rhythm.skipped >= 16
    # the first iteration (models not yet known) and three equal ones to learn the pattern, then none:
    # told at the end how many it missed
    assert probe.steps() == [1, 2, 3, 4]
    assert probe.resyncs == [(16, [])]
    assert not w.session.internal_errors


def test_fingerprint_off_shows_every_iteration():
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    probe = Probe()
    with _watched(model, opt, probe, fingerprint=False) as w:
        for step in range(1, 11):
            x, y = _batch(step)
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
    assert probe.steps() == list(range(1, 11))
    assert w.session.rhythm.skipped == 0


# --- a change of pattern brings the full audit back at once --------------------------------------


def _changing(change: str, probe: Probe, at: int = 10, steps: int = 14) -> None:
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with _watched(model, opt, probe) as w:
        for step in range(1, steps + 1):
            x, y = _batch(step)
            if step == at and change == "second optimizer":
                other = nn.Linear(8, 1)
                opt2 = torch.optim.Adam(other.parameters())
                opt2.zero_grad()
            if step >= at and change == "evaluation left on":
                model.eval()
            if step == at and change == "nan in the data":
                x[0, 0] = float("nan")
            if step == at and change == "new model":
                model = _mlp(1)
                opt = torch.optim.SGD(model.parameters(), lr=0.01)
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            if step == at and change == "another backward line":
                loss.backward()
            else:
                loss.backward()
            opt.step()
        assert w.session.rhythm.iteration == steps
    assert not w.session.internal_errors


@pytest.mark.parametrize("change, first_seen", [
    ("another backward line", ("backward", 10)),
    ("evaluation left on", ("step", 10)),  # the model's training flag is part of each step's key
    ("second optimizer", ("zero_grad", 10)),  # created: the events after it are seen
    ("new model", ("zero_grad", 10)),
    ("nan in the data", ("step", 11)),  # known when the step-10 reading is judged, at step 11's step
])
def test_a_change_of_pattern_brings_every_observer_back_at_once(change, first_seen):
    probe = Probe()
    _changing(change, probe)
    kind, step = first_seen
    assert probe.steps()[:4] == [1, 2, 3, 4]
    later = [event for event in probe.seen if event[1] >= 5]
    assert later[0] == first_seen, probe.seen
    # the iterations after it are seen until the new pattern has repeated
    assert all(s in probe.steps() for s in range(step + 1, step + 3))
    skipped, _ = probe.resyncs[0]
    assert skipped == 10 - 5 + (1 if step == 11 else 0)


def test_resync_names_what_the_iteration_in_progress_did_before_it_differed():
    probe = Probe()
    _changing("evaluation left on", probe)
    # steps 5-9 skipped, then step 10's zero_grad and backward matched the pattern: missed too
    assert probe.resyncs[0] == (5, ["call", "backward"])


# --- a bug that starts late is found at the same step ------------------------------------------------


def _late(bug: str, steps: int = 520):
    """A long run of a small model where `bug` starts late; its findings and its parameters."""

    def run(fingerprint: bool):
        model = _mlp()
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        w = _watched(model, opt, fingerprint=fingerprint)
        kept = []
        x_val, y_val = _batch(10_000)
        with w:
            for step in range(1, steps + 1):
                if bug == "evaluation in training mode from step 300" and step >= 300 and step % 40 == 0:
                    with torch.no_grad():
                        kept.append(F.mse_loss(model(x_val), y_val).item())  # dropout still on
                x, y = _batch(step)
                if not (bug == "zero_grad removed from step 300" and step >= 300):
                    opt.zero_grad()
                if bug == "eval mode from step 300" and step == 300:
                    model.eval()
                if bug == "nan at step 500" and step == 500:
                    x[3, 2] = float("nan")
                if bug == "lr 0 from step 300" and step == 300:
                    for group in opt.param_groups:
                        group["lr"] = 0.0
                if bug == "detach from step 250" and step >= 250:
                    hidden = model[1](model[0](x)).detach()
                    loss = F.mse_loss(model[3](model[2](hidden)), y)
                else:
                    loss = F.mse_loss(model(x), y)
                if bug == "losses kept in a list from step 300" and step >= 300:
                    kept.append(loss)
                loss.backward()
                opt.step()
            skipped = w.session.rhythm.skipped
        found = sorted((f.code, f.step, f.line, f.severity.name, f.message) for f in w.report().findings)
        assert not w.session.internal_errors
        return found, [p.detach().clone() for p in model.parameters()], skipped

    return run(True), run(False)


@pytest.mark.parametrize("bug, code", [
    ("zero_grad removed from step 300", "GD201"),
    ("eval mode from step 300", "GD208"),
    ("nan at step 500", "GD301"),
    ("lr 0 from step 300", None),
    ("detach from step 250", None),
    ("losses kept in a list from step 300", "GD207"),
    ("evaluation in training mode from step 300", "GD211"),
])
def test_a_bug_that_starts_late_is_found_at_the_same_step(bug, code):
    (found_on, params_on, skipped), (found_off, params_off, none) = _late(bug)
    assert skipped > 0 and none == 0
    assert found_on == found_off
    if code is not None:
        assert code in {f[0] for f in found_on}, found_on
    # the training itself is untouched: bit-identical parameters either way
    assert all(torch.equal(a.view(torch.int32), b.view(torch.int32)) for a, b in zip(params_on, params_off))


def test_nan_at_step_500_is_reported_at_step_500():
    (found_on, _, _), _ = _late("nan at step 500")
    assert [f[1] for f in found_on if f[0] == "GD301"] == [500]


def test_backward_passes_that_never_step_keep_no_growing_pattern():
    model = _mlp()
    with _watched(model, None) as w:
        for step in range(1, 2000):
            x, y = _batch(step % 7)
            F.mse_loss(model(x), y).backward()
        assert len(w.session.rhythm.keys) <= 513
    assert not w.session.internal_errors


def test_kept_alive_and_evaluation_mode_sleep_through_repeated_iterations_and_count_them():
    """GD207 sleeps between its windows (they open by iteration count) and GD211 sleeps while no model
    has a layer it judges; after the run each has counted every iteration and backward as if awake."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))  # no dropout: nothing for GD211 to hook
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    w = _watched(model, opt)
    observers = {o.name: o for o in w.session.observers}
    kept, evaluation = observers["kept-alive"], observers["evaluation_mode"]
    shown = {"kept-alive": 0, "evaluation_mode": 0}
    for name, observer in (("kept-alive", kept), ("evaluation_mode", evaluation)):
        def counted(event, original=observer.after_step, name=name):
            shown[name] += 1
            original(event)
        observer.after_step = counted
    with w:
        for step in range(1, 301):
            x, y = _batch(step)
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
    assert not w.session.internal_errors
    assert shown["evaluation_mode"] < 20, shown  # asleep from the rhythm's settling on
    assert 10 < shown["kept-alive"] < 60, shown  # awake for its windows (every 50 iterations) only
    assert kept.windows == 6 and kept.cycles == 300 and kept.lifetimes.steps == 300
    assert evaluation.backwards == 300 == w.session.backward_count
