"""Graph reach during a run: which parameters the observed backward passes reached.

Walks the graph at the first backward passes and then at a sampled interval
(walking costs about a microsecond per node, so it is affordable but not free
on every step), and judges reach once, at the end, on what all observed
backward passes reached together: a head trained on alternate batches is
reached by some step and is therefore not reported.
"""

from __future__ import annotations

import weakref



from graddoctor.finding import Finding
from graddoctor.graph.checks import check_loss_value, check_reach
from graddoctor.locate import Location
from graddoctor.session.observer import BackwardEvent, CallEvent, Observer


class GraphObserver(Observer):
    name = "graph"

    def __init__(self, walk_first: int = 3, walk_every: int = 50) -> None:
        self.walk_first = walk_first
        self.walk_every = walk_every
        self._reached: dict[int, weakref.ref] = {}
        self._found: list[Finding] = []
        self.first_backward: Location | None = None
        self.walked = 0
        self.zero_grads_since_backward: list[CallEvent] = []

    def before_backward(self, event: BackwardEvent) -> None:
        self.zero_grads_since_backward = []
        if self.first_backward is None:
            self.first_backward = event.where
        if event.index >= self.walk_first and event.index % self.walk_every:
            return
        self.walked += 1
        tensors = event.loss if isinstance(event.loss, (list, tuple)) else [event.loss]
        has_gradient = event.extra.get("gradient") is not None
        for loss in tensors:
            findings, walked = check_loss_value(loss, event.where, event.step, finiteness=False)
            if has_gradient:
                findings = [f for f in findings if f.code != "GD103"]
            self._found.extend(findings)
            if walked is not None:
                for leaf in walked.leaves:
                    if id(leaf) not in self._reached:
                        self._reached[id(leaf)] = weakref.ref(leaf)

    def on_call(self, event: CallEvent) -> None:
        if event.kind == "zero_grad":
            self.zero_grads_since_backward.append(event)

    def reached(self) -> set[int]:
        return {key for key, ref in self._reached.items() if ref() is not None}

    def findings(self) -> list[Finding]:
        out = list(self._found)
        if self.first_backward is None or not self.walked:
            return out
        session = self.session
        index = session.model_index()
        optimizers = session.optimizers()
        judge = None
        if not optimizers:
            reached = self.reached()
            touched = {index.owner[pid] for pid in reached if pid in index.owner}
            judge = [p for pid, p in index.params.items() if index.owner[pid] in touched and p.requires_grad]
        out.extend(check_reach(index, optimizers, self.reached(), self.first_backward, judge=judge))
        return out

    def unreached_names(self) -> list[str]:
        index = self.session.model_index()
        reached = self.reached()
        return [index.name(p) for p in index.trainable() if id(p) not in reached]



