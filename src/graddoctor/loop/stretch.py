"""The loop audit through repeated iterations (session/rhythm.py): whether it may sleep through them,
and what a stretch of them did to its state when it wakes.

The audit's rules compare ticks (one per backward, optimizer step and call, in order) and gradient
marks. Once the rhythm is steady, every iteration repeats the same keys, so what the ticks become
follows from the keys alone: an iteration adds one tick per key, and a tick that a key sets (the last
backward, an optimizer's last step, its last zero_grad) is, after a stretch, the tick of the last place
in the pattern that sets it, in the iteration in progress or the one before. The counters follow the
same way (backward passes per iteration, clip calls per iteration).

What the keys do not show are facts about the gradients: a gradient cleared by hand (`p.grad = None`,
`p.grad.zero_()`) or written by hand is no event. Those facts decide GD201 (a step with no zero_grad
since the previous one, where the gradient may have been cleared by hand) and GD202 (a zero_grad
between backward and step, where a gradient may have been written by hand after it). So the audit
sleeps only where the pattern itself rules both out for every optimizer that steps (a zero_grad covering
its parameters between each two of its steps, none between a backward and its step), or where the
finding is already made (one per optimizer: a later one would change nothing). Each step is still
shown to it (`after_step`, a steady event): its count, and the mark of the gradient after it, which a
GD201 check reads when the zero_grad disappears from the loop (a late bug) and must be the one taken
right after the previous step, whatever the script did to the gradients between that step and the
change. The eval-mode check (GD208 counts the steps taken in eval mode), GradScaler and DataLoader
calls (GD307, GD205's passes) keep it awake; so does a scheduler whose GD205 judgement is still open.
"""

from __future__ import annotations

from dataclasses import dataclass

from graddoctor.loop.state import OptimizerState
from graddoctor.session.manual_steps import ManualUpdates

# What one key does to the audit: the calls it can follow without seeing them
FOLLOWED_CALLS = ("zero_grad", "clip", "scheduler")


@dataclass
class Stretch:
    """One iteration of the pattern as the audit saw it last, and its counters at its end."""

    keys: tuple  # the pattern's keys, its end key left out
    first: int  # the rhythm's number of the first iteration the audit misses
    tick: int  # the audit's tick, backward, completed-backward and write counts at the end of the one it saw
    backwards: int
    completed: int
    writes: int
    cum_backwards: list  # backward keys among keys[:q], q = 0..len(keys)
    cum_writes: list  # clip keys (in-place writes to the gradients) among keys[:q]
    marked: frozenset  # ids of the optimizers whose mark after each step is still read (no GD201 yet)
    schedulers: dict  # scheduler id -> how many times it steps per iteration, and its places (1-based)

    def counts_at(self, iteration: int, position: int) -> tuple[int, int]:
        """(backward passes, writes) after `position` keys of the rhythm's iteration `iteration`."""
        j = iteration - self.first
        return (self.backwards + j * self.cum_backwards[-1] + self.cum_backwards[position],
                self.writes + j * self.cum_writes[-1] + self.cum_writes[position])


def _covered(st: OptimizerState, ids) -> bool:
    return bool(st.param_ids) and ids is not None and (st.param_ids is ids or not st.param_ids.isdisjoint(ids))


def zero_targets(keys, states: dict, module_ids: dict) -> dict:
    """Place (1-based) of each zero_grad key -> the parameter ids it clears (None: not known)."""
    out = {}
    for place, key in enumerate(keys, 1):
        if key[0] == "call" and key[1] == "zero_grad":
            target = states.get(key[3])
            if target is not None and target.optimizer() is not None:
                out[place] = target.param_ids
            else:
                cached = module_ids.get(key[3])
                out[place] = cached[1] if cached is not None else None
    return out


def windows(keys, places: list[int]):
    """For each step place in `places` (one optimizer's), the places since its previous step, in order
    (cyclically: the previous one may be in the iteration before)."""
    n = len(keys)
    for place in places:
        earlier = [p for p in places if p < place]
        start = earlier[-1] if earlier else places[-1] - n  # the previous step, in this iteration or the last
        yield [((p - 1) % n) + 1 for p in range(start + 1, place)]


def plan(audit, rhythm) -> tuple[Stretch | None, int | None]:
    """Whether the audit may sleep through the repeated iterations of `rhythm.pattern`.

    Returns (the stretch to resync from, how many iterations it may miss: None for any number), or
    (None, 0) to see the next iteration and be asked again, or (None, -1) to see every event while the
    pattern lasts (what keeps it awake is in the pattern itself)."""
    keys = tuple(rhythm.pattern[:-1])
    states = audit._states
    schedulers: dict = {}
    for place, key in enumerate(keys, 1):
        kind = key[0]
        if kind == "call":
            if key[1] not in FOLLOWED_CALLS:
                return None, -1
            if key[1] == "scheduler":
                schedulers.setdefault(key[3], []).append(place)
        elif kind == "step":
            st = states.get(key[1])
            if st is None or st.optimizer() is None or st.roots is None:
                return None, -1
        elif kind != "backward":
            return None, -1
    zeros = zero_targets(keys, states, audit._module_ids)
    marked = set()
    for sid, st in states.items():
        places = [place for place, key in enumerate(keys, 1) if key[0] == "step" and key[1] == sid]
        if not places:
            continue
        if isinstance(st.optimizer(), ManualUpdates) or any(
                ref() is not None and not ref().training for ref in st.roots):
            return None, -1  # a manual update never repeats; steps in eval mode are counted one by one
        gd201 = ("GD201", sid) not in audit._found
        gd202 = ("GD202", sid) not in audit._found
        for window in windows(keys, places):
            cleared = backward = between = False
            for place in window:  # in the order they run
                if keys[place - 1][0] == "backward":
                    backward = True
                elif place in zeros and _covered(st, zeros[place]):
                    cleared, between = True, between or backward
            if gd201 and not cleared:
                return None, -1  # no zero_grad between two steps: whether it fires depends on hand clearing
            if gd202 and between:
                return None, -1  # a zero_grad after a backward: whether it fires depends on what comes after it
        if gd201:
            marked.add(sid)
    wake = None
    for sid, places in schedulers.items():
        allowed = audit.schedulers.skippable(sid, len(places), audit.learning_rates)
        if allowed is not None:
            if allowed <= 0:
                return None, allowed
            wake = allowed if wake is None else min(wake, allowed)
    cum_backwards, cum_writes = [0], [0]
    for key in keys:
        cum_backwards.append(cum_backwards[-1] + (key[0] == "backward"))
        cum_writes.append(cum_writes[-1] + (key[0] == "call" and key[1] == "clip"))
    stretch = Stretch(keys, rhythm.iteration, audit.tick, audit.backwards, audit.completed_backwards, audit.writes,
                      cum_backwards, cum_writes, frozenset(marked), schedulers)
    return stretch, wake


def resync(audit, stretch: Stretch, skipped: int, prefix: tuple) -> None:
    """The audit's state after `skipped` repeated iterations and the `prefix` of the one in progress,
    as if it had seen them (its steps and their marks it has seen: `after_step`)."""
    keys, n, p = stretch.keys, len(stretch.keys), len(prefix)
    base = stretch.tick  # the tick at the start of the first iteration missed

    def last(places, old: int) -> int:
        """The tick of the last of `places` passed by now; `old` when none is in the pattern (or it was
        not set in the iteration seen: a fact that repeats, a gradient that never came)."""
        if not places or old <= base - n:
            return old
        here = [q for q in places if q <= p]
        if here:
            return base + skipped * n + here[-1]
        return base + (skipped - 1) * n + places[-1]

    backward_places = [q for q, key in enumerate(keys, 1) if key[0] == "backward"]
    step_places = [q for q, key in enumerate(keys, 1) if key[0] == "step"]
    zeros = zero_targets(keys, audit._states, audit._module_ids)
    for sid, st in audit._states.items():
        mine = [q for q in step_places if keys[q - 1][1] == sid]
        st.last_step_tick = last(mine, st.last_step_tick)
        cleared = [q for q in sorted(zeros) if _covered(st, zeros[q])]
        zero = last(cleared, st.last_zero_tick)
        if zero != st.last_zero_tick:
            st.last_zero_tick = zero
            st.last_zero_where = keys[(zero - base - 1) % n][4]
        # the first backward after each of its steps: where the audit notes its parameters have gradients
        filled = []
        for window in windows(keys, mine) if mine else ():
            after = [q for q in window if keys[q - 1][0] == "backward"]
            if after:
                filled.append(after[0])
        st.grads_tick = last(sorted(filled), st.grads_tick)
    audit.last_backward_tick = last(backward_places, audit.last_backward_tick)
    audit.last_step_tick = last(step_places, audit.last_step_tick)
    audit.tick = base + skipped * n + p
    backwards = skipped * stretch.cum_backwards[-1] + stretch.cum_backwards[p]
    audit.backwards = stretch.backwards + backwards
    audit.completed_backwards = stretch.completed + backwards
    audit.writes = stretch.writes + skipped * stretch.cum_writes[-1] + stretch.cum_writes[p]
    for sched, places in stretch.schedulers.items():
        calls = skipped * len(places) + sum(1 for q in places if q <= p)
        if calls:
            audit.schedulers.skipped(sched, calls, audit.learning_rates)
