"""The loop's rhythm: once the training iteration repeats, repeated iterations skip the observers
that can miss them.

An iteration is the events between two optimizer steps (with several optimizers, up to the step
of the one that steps least often: a GAN's generator). Its fingerprint is the ordered sequence of
its events, each a cheap key: the event kind, the user's line (a Location, cached per code object
and instruction offset, so the same object at every step), the optimizer, module or scheduler it
concerns, and what of the call shapes the iteration (retain_graph, create_graph, grad mode, the
loss's last graph node's type); and, at its end, the count of models and optimizers the session
has discovered and each watched model's `training` flag.

Once `REPEATS` iterations in a row have the same fingerprint, the rhythm is steady: each event
of the next iteration is compared with the one at the same place in the fingerprint, and only the
observers that see every event get it, plus those that asked to see this iteration in full. An
observer declares what it can miss with `Observer.wake_in` (how many repeated iterations it can
miss before it must see one: 0 for every one, the default; None for any number) and catches up
with `Observer.resync` (told how many it missed, before its next event). Anything that differs
(another line, another optimizer, an evaluation that leaves the model in eval mode, a new model or
optimizer, a backward that raised, a symptom an observer reports through `disrupt`) ends the steady
rhythm at once: every observer is resynced and sees everything again, this event included, until
the pattern has repeated `REPEATS` times again.

`GRADDOCTOR_FINGERPRINT=0` in the environment turns the mechanism off (every observer sees every
event): the findings must be the same either way (tests/session/test_rhythm_findings.py).
"""

from __future__ import annotations

import operator
import os
import weakref
from typing import Any

from graddoctor.session.observer import Observer

REPEATS = 3  # identical iterations in a row before the next repeated ones are skipped
LONGEST = 512  # events in one iteration past which it is no pattern (a loop of backward passes that never steps)


_TRAINING = operator.attrgetter("training")


def enabled_by_environment() -> bool:
    return os.environ.get("GRADDOCTOR_FINGERPRINT", "1").strip().lower() not in ("0", "off", "false", "no")


class Rhythm:
    """Follows one session's iterations; while steady, picks the observers each event goes to.

    The session asks `handlers(event_name, key, full)` for each before_ event and on_call
    (`full`: its handlers for every observer, in order), `after(event_name, full)` for the
    after_ events, and calls `end_iteration()` after an iteration's last step. On its hot path
    (session._keyed) it does the same inline: compares the key with `pattern[position]` while
    `position < last`, and takes the handlers from `routes` (event name -> (full, the awake
    observers' handlers)), which hold while the same observers sleep.
    """

    def __init__(self, session, enabled: bool = True) -> None:
        self.session = session
        self.enabled = enabled
        self.steady = False
        self.iteration = 0  # iterations completed in this session (the one in progress has this number)
        self.keys: list = []  # this iteration's event keys so far (while not steady)
        self.pattern: list | None = None  # the last complete iteration's keys, its end key last
        self.last = 0  # steady: len(pattern) - 1, the place of the end key
        self.repeats = 0  # consecutive iterations equal to `pattern`
        self.position = 0  # steady: where in `pattern` the next event is expected
        self.broken = False  # something this iteration rules the pattern out (a manual update, a failure)
        # what one iteration of the pattern holds, for the observers' `wake_in` and `resync`
        self.steps: dict[int, int] = {}  # optimizer id -> its steps per iteration
        self.backwards = 0  # backward calls per iteration
        self.calls: frozenset = frozenset()  # the kinds of call in one iteration ("zero_grad", "clip", ...)
        self.step = 1  # the session step at the start of the next (or current) iteration
        self.backward_index = 0  # the session's backward count at the start of the next (or current) iteration
        self.dispatching = False  # a keyed event that matched is being handed out
        self.skipped = 0  # observer-iterations skipped in this session (tests and the benchmark read it)
        # observer id -> [observer, iteration it must see (None: none), first iteration it missed, awake]
        self._asleep: dict[int, list] = {}
        self._next_wake: float = float("inf")
        self.routes: dict[str, tuple] = {}  # event name -> (full, the handlers of the awake observers)
        self._routes_of: dict[frozenset, dict] = {}  # sleeping ids -> their routes, while steady
        self._sleeping: frozenset = frozenset()
        self._roots: list = []  # weak references to the models known at the last iteration's end
        self._held: dict = {}  # key -> (what an observer reads, its value): must stay the same while steady
        self._values: dict = {}  # key -> (dicts, field, their values): must stay the same while steady

    # --- per event --------------------------------------------------------------------------------------

    def note(self, key: Any) -> None:
        """Not steady: one more event of the iteration in progress."""
        keys = self.keys
        keys.append(key)
        if len(keys) > LONGEST:
            keys.clear()
            self.broken = True

    def handlers(self, event_name: str, key: Any, full: list) -> list:
        """The handlers `event_name` goes to: `full` unless steady and `key` is the one expected here."""
        if not self.steady:
            if self.enabled:
                self.note(key)
            return full
        position = self.position
        if position < self.last and self.pattern[position] == key:
            self.position = position + 1
            return self.route(event_name, full)
        self.differs(key)
        return full

    def differs(self, key: Any) -> None:
        """Steady, and `key` is not the one expected here: back to the full audit, this event included."""
        self.keys = list(self.pattern[:self.position])  # the iteration so far matched: it is this one's start
        self.disrupt()
        self.keys.append(key)

    def after(self, event_name: str, full: list) -> list:
        """The handlers of an after_ event: the same observers as its before_ event had."""
        if not self.steady:
            return full
        return self.route(event_name, full)

    def route(self, event_name: str, full: list) -> list:
        """Steady: the handlers of `full` (every observer's, in order) of the observers awake now, and of the
        sleeping ones that get `event_name` all the same (`steady_events`)."""
        found = self.routes.get(event_name)
        if found is None or found[0] is not full:
            sleeping = self._sleeping
            found = self.routes[event_name] = (full, [pair for pair in full if id(pair[0]) not in sleeping
                                                      or pair[1].__name__ in pair[0].steady_events])
        return found[1]

    def forget_routes(self) -> None:
        """The observers changed (one failed): every route is made again."""
        self._routes_of = {}
        self.routes = self._routes_of.setdefault(self._sleeping, {})

    def modes(self) -> tuple:
        """The `training` flag of each model the session knew at the last iteration's end (at every step:
        session.begin_step reads them the same way itself, and asks here only when a model was freed)."""
        try:
            return tuple(map(_TRAINING, map(operator.call, self._roots)))  # no Python-level call
        except AttributeError:  # a model was freed
            return tuple([getattr(ref(), "training", None) for ref in self._roots])

    def hold(self, key, read) -> None:
        """While steady, `read()` (a cheap read of a fact events do not show: a learning rate set by hand)
        must give what it gives now at each iteration's end; when it changes, the full audit comes back."""
        if self.steady or self.pattern is not None:
            self._held[key] = (read, read())

    def hold_values(self, key, dicts: list, field: str) -> None:
        """Like `hold`, for the value under `field` of each of `dicts` (a list the session may grow: each
        optimizer's param groups and their learning rate), read without a Python-level call."""
        if self.steady or self.pattern is not None:
            get = operator.methodcaller("get", field)  # None where a dict lacks it: never raises
            self._values[key] = (dicts, get, tuple(map(get, dicts)))

    def _changed(self) -> bool:
        for read, value in self._held.values():
            if read() != value:
                return True
        return False

    def block(self) -> None:
        """This iteration can never count as a repeat (a manual parameter update, a failed backward)."""
        self.disrupt()
        self.broken = True

    # --- per iteration ------------------------------------------------------------------------------

    def end_iteration(self) -> None:
        self.iteration += 1
        session = self.session
        if self.steady:
            end = self.pattern[-1]
            # (the models' modes are part of each step's key: a change shows there)
            changed = False
            for dicts, get, values in self._values.values():  # inline: at every iteration's end
                if tuple(map(get, dicts)) != values:
                    changed = True
                    break
            if (changed or self.position != self.last or session.discovered.discoveries != end[1]
                    or (self._held and self._changed())):
                # it ended early, a model changed mode, or a model or optimizer appeared
                self.keys = list(self.pattern[:self.position])
                self.iteration -= 1
                self.disrupt()
                self.iteration += 1
                self.pattern, self.repeats, self.keys = None, 0, []
                return
            self.position = 0
            self.skipped += len(self._sleeping)
            self.step, self.backward_index = session.steps_taken + 1, session.backward_count
            if self.iteration >= self._next_wake:
                self._turn()
            return
        if not self.enabled:
            return
        keys, self.keys = self.keys, []
        if self.broken or not any(k[0] == "step" for k in keys):
            self.broken = False
            self.pattern, self.repeats = None, 0
            return
        roots = list(session.models().values())
        keys.append(("end", session.discovered.discoveries, tuple(id(m) for m in roots),
                     tuple(m.training for m in roots)))
        self._roots = [weakref.ref(m) for m in roots]  # weakly: a model the script drops is freed
        if keys == self.pattern:
            self.repeats += 1
        else:
            self.pattern, self.repeats = keys, 1
        if self.repeats >= REPEATS:
            self._settle()

    def disrupt(self) -> None:
        """Back to the full audit at once: every sleeping observer is resynced and sees everything again.

        Each is told how many whole iterations it missed, and the keys of the events of the
        iteration in progress that it missed (they matched the pattern)."""
        if not self.steady:
            self.pattern, self.repeats = None, 0
            return
        self.steady = False
        asleep, self._asleep = self._asleep, {}
        self._held, self._values, self._routes_of = {}, {}, {}
        # during a matched event's dispatch, that event is handed to the woken observers after: not missed
        prefix = tuple(self.pattern[:self.position - 1 if self.dispatching else self.position])
        self.pattern, self.repeats, self.position = None, 0, 0
        self._next_wake = float("inf")
        self._sleeping = frozenset()
        self.routes = {}
        for observer, _, since, awake in asleep.values():
            if not awake:
                self.session._resync(observer, self.iteration - since, prefix)

    catch_up = disrupt  # findings asked for mid-run, or the session ends: everyone up to date

    # --- steady ------------------------------------------------------------------------------------------

    def _settle(self) -> None:
        """The pattern repeated: from the next iteration on, the observers that can miss it sleep."""
        session = self.session
        self.steps = {}
        for key in self.pattern:
            if key[0] == "step":
                self.steps[key[1]] = self.steps.get(key[1], 0) + 1
        self.backwards = sum(1 for key in self.pattern if key[0] == "backward")
        self.calls = frozenset([key[1] for key in self.pattern if key[0] == "call"])
        self.step, self.backward_index = session.step, session.backward_count
        now = self.iteration
        self._asleep = {}
        for observer in session._live():
            if type(observer).wake_in is Observer.wake_in:
                continue  # it sees every event
            wake = session._wake_in(observer, self)
            if wake is not None and wake < 0:
                continue  # it sees every event while this pattern lasts
            if wake is None or wake > 0:
                self._asleep[id(observer)] = [observer, None if wake is None else now + wake, now, False]
            else:
                self._asleep[id(observer)] = [observer, now, now, True]  # it sees the next one, then is asked again
        if not self._asleep:
            self.repeats = 0  # nothing can skip now: look again after REPEATS more
            return
        self.steady = True
        self.position = 0
        self.last = len(self.pattern) - 1
        self._plan()

    def _turn(self) -> None:
        """An iteration boundary where some observer wakes, or one that saw the last iteration falls asleep."""
        session, now = self.session, self.iteration
        for key, entry in list(self._asleep.items()):
            observer, at, since, awake = entry
            if awake:  # it saw the iteration just ended: when must it see the next one?
                wake = session._wake_in(observer, self)
                if wake is not None and wake < 0:
                    del self._asleep[key]  # it sees every event while this pattern lasts, not asked again
                    continue
                if wake is not None and wake <= 0:
                    continue  # it sees the next one too, and is asked again after it
                entry[:] = [observer, None if wake is None else now + wake, now, False]
            elif at is not None and at <= now:
                session._resync(observer, now - since, ())
                entry[3] = True
        self._plan()

    def _plan(self) -> None:
        sleeping, wake, now = [], float("inf"), self.iteration + 1
        for key, entry in self._asleep.items():
            if entry[3]:
                wake = now  # it sees this iteration: asked again after it
            else:
                sleeping.append(key)
                if entry[1] is not None and entry[1] < wake:
                    wake = entry[1]
        self._next_wake = wake
        self._sleeping = frozenset(sleeping)
        routes = self._routes_of.get(self._sleeping)
        if routes is None:
            if len(self._routes_of) > 64:
                self._routes_of.clear()
            routes = self._routes_of[self._sleeping] = {}
        self.routes = routes  # the same observers asleep again (a wake-up every few iterations): made once


def sampled_wake(steps: int, per: int, first: int, every: int) -> int | None:
    """For an observer that measures the steps numbered up to `first`, then every `every`-th, with `steps`
    taken: how many whole iterations of `per` steps can go by before the one that holds its next measured
    step (None when none comes: no step per iteration). Asked at each wake-up: closed form, no loop."""
    if per <= 0 or every <= 0:
        return None
    due = steps + 1 if steps + 1 <= first else (steps // every + 1) * every
    return (due - steps - 1) // per


def disrupt(session) -> None:
    """A symptom seen by an observer (a NaN, a deep step asked for): the session's full audit comes back now."""
    rhythm = getattr(session, "rhythm", None)
    if rhythm is not None:
        rhythm.disrupt()
