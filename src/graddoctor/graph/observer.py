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
from graddoctor.graph.phrases import name_list
from graddoctor.locate import Location
from graddoctor.rules import make
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
        self.graphs_seen = 0  # walks that found a graph (a loss without one is GD102/GD110 alone)
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
                self.graphs_seen += 1
                for leaf in walked.leaves:
                    if id(leaf) not in self._reached:
                        self._reached[id(leaf)] = weakref.ref(leaf)

    def on_call(self, event: CallEvent) -> None:
        if event.kind == "zero_grad":
            self.zero_grads_since_backward.append(event)

    def explain_exception(self, exc: BaseException, where: Location) -> list[Finding]:
        """Which of the three reasons for `p.grad` being None applies here."""
        text = str(exc)
        if not (isinstance(exc, AttributeError) and text.startswith("'NoneType' object has no attribute")):
            return []
        attr = text.rsplit("'", 2)[-2] if text.count("'") >= 4 else "?"
        if self.first_backward is None:
            cause = (
                f"No backward() had run yet, and .grad is None until the first backward pass "
                f"fills it, so `.grad.{attr}` fails."
            )
            hint = "Only touch .grad after loss.backward(), and guard it: `if p.grad is not None:`."
        elif self.zero_grads_since_backward:
            call = self.zero_grads_since_backward[-1]
            to_none = call.kwargs.get("set_to_none", call.args[0] if call.args else True)
            if not to_none:
                return []
            cause = (
                f"{'optimizer' if call.method == 'optimizer' else 'model'}.zero_grad() at {call.where} set "
                f"the gradients to None (the default since torch 2.0), so `.grad.{attr}` fails."
            )
            hint = (
                "Let zero_grad() clear the gradients instead of zeroing .grad by hand, or guard "
                "the access: `if p.grad is not None:`."
            )
        else:
            unreached = self.unreached_names()
            if not unreached:
                return []
            cause = (
                f"{name_list(unreached)} received no gradient from the last backward() (the loss does "
                f"not reach them), so their .grad is None and `.grad.{attr}` fails."
            )
            hint = "Make the loss reach these parameters, or skip parameters whose .grad is None."
        return [make("GD104", cause, hint=hint, subjects=[], **where.shown())]

    def reached(self) -> set[int]:
        return {key for key, ref in self._reached.items() if ref() is not None}

    def findings(self) -> list[Finding]:
        out = list(self._found)
        if self.first_backward is None or not self.graphs_seen:
            return out
        session = self.session
        index = session.model_index()
        optimizers = session.optimizers()
        reached = self.reached()
        if optimizers:
            # Parameters that only an optimizer still holds (a layer replaced after the
            # optimizer was built) are a symptom of GD106, not parameters to judge.
            judge = [p for r in optimizers for p in r.params() if id(p) in index.params]
        else:
            touched = {index.owner[pid] for pid in reached if pid in index.owner}
            judge = [p for pid, p in index.params.items() if index.owner[pid] in touched and p.requires_grad]
        out.extend(check_reach(index, optimizers, reached, self.first_backward, judge=judge))
        return out

    def unreached_names(self) -> list[str]:
        index = self.session.model_index()
        reached = self.reached()
        return [index.name(p) for p in index.trainable() if id(p) not in reached]



