"""Graph reach during a run: which parameters the observed backward passes reached.

Walks the graph at the first backward passes and then at a sampled interval
(walking costs about a microsecond per node, so it is affordable but not free
on every step), and judges reach once, at the end, on what all observed
backward passes reached together: a head trained on alternate batches is
reached by some step and is therefore not reported.
"""

from __future__ import annotations

import re
import weakref

import torch

from graddoctor.finding import Finding, Severity
from graddoctor.observers.graph_checks import check_loss_value, check_reach
from graddoctor.graph.naming import ModelIndex
from graddoctor.observers.replaced_models import ReplacedModels
from graddoctor.rules.graph.gd104_parameter_without_gradient.judge import grad_is_none_here
from graddoctor.locate import Location
from graddoctor.session.observer import BackwardEvent, CallEvent, CutSource, Observer, StepEvent


class GraphObserver(Observer):
    name = "graph"
    codes = frozenset({"GD101", "GD102", "GD103", "GD104", "GD105", "GD106", "GD110", "GD113", "GD210"})

    def __init__(self, walk_first: int = 3, walk_every: int = 50, cuts: CutSource | None = None) -> None:
        self.walk_first = walk_first
        self.walk_every = walk_every
        self.cut_source = cuts  # deep mode: names the line that cut a path
        self._reached: dict[int, weakref.ref] = {}  # id -> leaf, of every leaf a walk reached
        self._reached_at: dict[int, int] = {}  # id -> the index of the last walked backward that reached it
        self._reached_bound = 1024  # pruned of freed leaves when it grows past this
        self._found: list[Finding] = []
        self.first_backward: Location | None = None
        self.walked = 0
        self._walk_until = walk_first  # backward passes before this index are all walked
        self._discoveries = 0  # the session's count when last looked at
        self.zero_grads_since_backward: list[CallEvent] = []
        self.zero_grads_total = 0
        self.replaced = ReplacedModels()
        # Parameters whose `.grad` was set when their optimizer stepped, by any means: a gradient
        # assigned by hand (`p.grad = g`, a first-order MAML meta-gradient taken from adapted copies)
        # trains them as well as one from backward() does.
        self._given: dict[int, weakref.ref] = {}
        self.steps_checked = 0

    def before_backward(self, event: BackwardEvent) -> None:
        self.zero_grads_since_backward = []
        if self.first_backward is None:
            self.first_backward = event.where
        if self._discoveries != self.session.discovered.discoveries:
            # a new optimizer or model: walk its first backward passes too, as the run's first. Else
            # a model built after the last sampled walk (the last fold's) was never seen reached.
            self._discoveries = self.session.discovered.discoveries
            self._walk_until = event.index + self.walk_first
        if event.index >= self._walk_until and event.index % self.walk_every:
            return
        self.walked += 1
        try:
            self._walk(event)
        finally:
            if self.walked == self.walk_first:
                self._ask_for_a_deep_step()

    def _ask_for_a_deep_step(self) -> None:
        """When the first walks leave trainable parameters of an optimizer unreached, ask deep mode
        (dormant under a plain `watch()`) to record one step: the cut it names tells a frozen
        teacher whose output only fed the loss as a target (by design) from a cut training path."""
        if self.cut_source is None:
            return
        reached = self._reached
        for record in self.session.optimizers():
            if any(p.requires_grad and id(p) not in reached for p in record.params()):
                self.session.consult(self.cut_source,
                                     lambda deep: deep.on_deep_request("parameters without gradient"), False)
                return

    def _walk(self, event: BackwardEvent) -> None:
        tensors = event.loss if isinstance(event.loss, (list, tuple)) else [event.loss]
        has_gradient = event.extra.get("gradient") is not None
        for loss in tensors:
            cuts = self._cuts(loss) if isinstance(loss, torch.Tensor) and loss.grad_fn is None else None
            findings, walked = check_loss_value(loss, event.where, event.step, finiteness=False, cuts=cuts, walk=event.trace)
            if has_gradient:
                findings = [f for f in findings if f.code != "GD103"]
            self._found.extend(findings)
            if walked is not None:
                reached = self._reached
                for leaf in walked.leaves:
                    ref = reached.get(id(leaf))
                    if ref is None or ref() is not leaf:  # a freed tensor's id is another's now
                        reached[id(leaf)] = weakref.ref(leaf)
                    self._reached_at[id(leaf)] = event.index
                if len(reached) > self._reached_bound:
                    self._forget_freed()
                if event.index:
                    self.replaced.walked(self.session, walked.leaves, event.where)

    def before_step(self, event: StepEvent) -> None:
        if event.step > self.walk_first and event.step % self.walk_every:
            return
        self.steps_checked += 1
        given = self._given
        for group in getattr(event.optimizer, "param_groups", ()):
            for p in group["params"]:
                if id(p) not in given and isinstance(p, torch.Tensor) and p.grad is not None:
                    given[id(p)] = weakref.ref(p)

    def wake_in(self, rhythm) -> int | None:
        """It acts on the backward passes it walks and the steps it checks (the first ones, then one in
        `walk_every` of each): it sees the repeated iterations that hold one, and skips the others.
        (A new model or optimizer changes the pattern, so its walks after a discovery are seen.)"""
        every, per_steps, backwards = self.walk_every, sum(rhythm.steps.values()), rhythm.backwards
        step, index = rhythm.step, rhythm.backward_index
        if index < self._walk_until or step <= self.walk_first or every <= 1:
            return 0
        # the first backward index and the first step number at a multiple of `every`, in iterations from now
        walk = (-(-index // every) * every - index) // backwards if backwards else every
        check = (-(-step // every) * every - step) // per_steps if per_steps else every
        return min(walk, check)

    def _forget_freed(self) -> None:
        """Drop the leaves freed since (replaced models'): the table stays the size of what lives."""
        self._reached = {key: ref for key, ref in self._reached.items() if ref() is not None}
        self._reached_at = {key: self._reached_at[key] for key in self._reached if key in self._reached_at}
        self._reached_bound = max(1024, 2 * len(self._reached))

    def on_call(self, event: CallEvent) -> None:
        if event.kind == "zero_grad":
            self.zero_grads_since_backward.append(event)
            self.zero_grads_total += 1

    def _cuts(self, loss=None) -> list:
        return self.session.consult(self.cut_source, lambda source: source.cuts(loss), [])

    def reached(self) -> set[int]:
        return {key for key, ref in self._reached.items() if ref() is not None}

    def findings(self) -> list[Finding]:
        out = list(self._found)
        if self.first_backward is None or not self.walked:
            return out
        session = self.session
        index = ModelIndex(session.models())
        optimizers = session.optimizers()
        walked_reach = index.reached(self.reached())
        given = {key for key, ref in self._given.items() if ref() is not None}
        reached = walked_reach | given
        if optimizers:
            # Parameters that only an optimizer still holds (a layer replaced after the
            # optimizer was built) are a symptom of GD106, not parameters to judge.
            judge = [p for r in optimizers for p in r.params() if id(p) in index.params]
        else:
            touched = {index.owner[pid] for pid in reached if pid in index.owner}
            judge = [p for pid, p in index.params.items() if index.owner[pid] in touched and p.requires_grad]
        reach = check_reach(index, optimizers, reached, self.first_backward, judge=judge, cuts=self._cuts(),
                            held_before=self._trained_before(session))
        if not reached and any(f.code in _LOSS_HAS_NO_GRAPH for f in out):
            # Nothing was reached because the loss itself has no graph: that finding says it all.
            reach = [f for f in reach if f.code not in ("GD101", "GD104", "GD110")]
        seen = {"backward_passes_walked": self.walked, "optimizer_steps_checked": self.steps_checked}
        by_hand = bool(judge) and given.issuperset(id(p) for p in judge) and not walked_reach.issuperset(given)
        for f in reach:
            f = f.with_(evidence={**f.evidence, **seen}) if f.code in ("GD104", "GD110") else f
            if f.code == "GD106" and by_hand:
                out.append(_also_by_hand(f))
            else:
                out.append(self.replaced.explain(f, session))
        return out

    def _trained_before(self, session) -> set[int]:
        """Parameters of an optimizer the script dropped, not reached since (a teacher trained
        first, then used under no_grad): they were in an optimizer. One reached after its
        optimizer was freed is trained by no optimizer now (a rebuilt optimizer that left it out)."""
        return {id(p) for p, freed_at in session.discovered.former_params() if self._reached_at.get(id(p), -1) < freed_at}

    def explain_exception(self, exc: BaseException, where: Location) -> list[Finding]:
        """`'NoneType' object has no attribute 'zero_'` and kin: say which of the three cases it is."""
        found = _NONE_GRAD.search(str(exc)) if isinstance(exc, AttributeError) else None
        if found is None or getattr(exc, "obj", 0) is not None:
            return []
        if where.file and "grad" not in where.source:
            return []  # the None is not a gradient: nothing here to explain
        unreached = self.unreached_names if self.walked else list
        return [grad_is_none_here(where, found["attr"], self.first_backward, self.zero_grads_since_backward, unreached)]

    def unreached_names(self) -> list[str]:
        index = ModelIndex(self.session.models())
        reached = index.reached(self.reached())
        return [index.name(p) for p in index.trainable() if id(p) not in reached]


def _also_by_hand(finding: Finding) -> Finding:
    """GD106 when every parameter the optimizers hold had a gradient at their steps, some of it set by
    hand: the optimizers train their models, and the parameters outside them (copies adapted by hand, a
    first-order MAML learner) are no sign that a model stopped training. Worth knowing, not an error."""
    return finding.with_(
        severity=Severity.INFO,
        evidence={**finding.evidence, "optimizer_parameters_all_had_grad_at_step": True},
    ).adding(" Every parameter the optimizer holds had a gradient when it stepped (some set by hand, "
             "not by this backward), so the optimizer does train its model; these are extra copies.")


_LOSS_HAS_NO_GRAPH = {"GD101", "GD102", "GD110"}
_NONE_GRAD = re.compile(r"'NoneType' object has no attribute '(?P<attr>\w+)'")
