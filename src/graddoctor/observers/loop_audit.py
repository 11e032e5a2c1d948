"""The loop audit: GD201-GD203, GD206, GD208, GD209 and GD307 from the order of calls
(and GD205 through rules/loop/gd205_scheduler_misuse/judge.py).

Every backward, optimizer step, zero_grad (optimizer or module, either form),
clip, scheduler step and GradScaler call gets a tick; each optimizer remembers
the ticks of its own last step and last zero_grad. A rule is a comparison of
ticks, judged when the call it concerns happens, so each finding carries the
user's line of that call. Nothing here touches tensor data on the hot path.
"""

from __future__ import annotations

import weakref

import torch
from torch import nn

from graddoctor.finding import Finding
from graddoctor.graph.phrases import related_at
from graddoctor.internal import known_models
from graddoctor.locate import NOWHERE, Location
from graddoctor.rules.loop.gd205_scheduler_misuse.judge import SchedulerSteps
from graddoctor.loop import stretch
from graddoctor.loop.state import GradMark, OptimizerState, param_ids_of
from graddoctor.rules import make
from graddoctor.session.manual_steps import ManualUpdates
from graddoctor.session.observer import BackwardEvent, CallEvent, Observer, StepEvent

_TRAIN_MODE_MODULES = (nn.modules.dropout._DropoutNd, nn.modules.batchnorm._BatchNorm)


class LoopAudit(Observer):
    name = "loop"
    codes = frozenset({"GD201", "GD202", "GD203", "GD205", "GD206", "GD208", "GD209", "GD307"})
    # asleep through repeated iterations, it still sees each step: its count and the gradient mark after it
    steady_events = frozenset({"after_step"})

    def __init__(self, epoch_scheduler_decay: float = 0.01, amp_skip_fraction: float = 0.5) -> None:
        self.schedulers = SchedulerSteps(epoch_scheduler_decay)
        self.amp_skip_fraction = amp_skip_fraction
        self.tick = 0
        self.backwards = 0
        self.completed_backwards = 0  # backward calls that returned (a crash mid-way is no loop)
        self.writes = 0  # clip/unscale calls: in-place writes to gradients
        self.last_backward_tick = -1
        self.first_backward: Location = NOWHERE
        self.last_step_tick = -1
        self.last_scale_tick = -1
        self.last_unscale_tick = -1
        self.scaler_used = False
        self._states: dict[int | tuple, OptimizerState] = {}  # by optimizer id (a tuple once freed and reused)
        self._module_ids: dict[int, tuple[int, frozenset]] = {}
        self._found: dict[tuple, Finding] = {}
        self._versions: int | None = None
        self._stretch: stretch.Stretch | None = None  # set while asleep through repeated iterations

    # --- events -----------------------------------------------------------------------------

    def before_backward(self, event: BackwardEvent) -> None:
        self.tick += 1
        self.backwards += 1
        self.last_backward_tick = self.tick
        if self.first_backward is NOWHERE:
            self.first_backward = event.where
            self._versions = self._param_versions()

    def after_backward(self, event: BackwardEvent) -> None:
        self.completed_backwards += 1
        for st in self._states.values():
            if st.grads_tick <= st.last_step_tick and st.has_gradient():
                st.grads_tick = self.tick

    def before_step(self, event: StepEvent) -> None:
        self.tick += 1
        st = self._states.get(id(event.optimizer))
        if st is None or st.optimizer() is not event.optimizer:
            st = self._state(event.optimizer)
        st.refresh()
        if st.first_step_where is NOWHERE:
            st.first_step_where = event.where
        backward_since = self.last_backward_tick > st.last_step_tick
        if backward_since and st.steps and st.last_zero_tick < st.last_step_tick and _same_pass(st, event):
            if st.after_step is None or not st.after_step.cleared(self.backwards, self.writes):
                self._add("GD201", id(event.optimizer), _missing_zero_grad(event))
        filled = st.grads_tick > st.last_step_tick
        if filled and st.last_zero_tick > st.grads_tick and self._no_gradient_since_zero(st):
            zero = st.last_zero_where
            self._add("GD202", id(event.optimizer), make(
                "GD202",
                "zero_grad() runs between backward() and step(): the gradients are cleared before the "
                "optimizer reads them, so the step applies no gradient.",
                step=event.step, evidence={"backwards": self.backwards, "optimizer_steps": st.steps}, **zero.shown(),
                related=related_at(event.where, "the optimizer step that finds no gradient"),
            ))
        self._check_eval_mode(st, event)

    def after_step(self, event: StepEvent) -> None:
        sleeping = self._stretch
        if sleeping is not None:  # a repeated iteration: the step counted, and marked where GD201 may still read it
            st = self._states.get(id(event.optimizer))
            if st is not None:
                st.steps += 1
                if id(event.optimizer) in sleeping.marked:  # the counts at this place: Stretch.counts_at, inline
                    rhythm = self.session.rhythm
                    j, q = rhythm.iteration - sleeping.first, rhythm.position
                    backwards, writes = sleeping.cum_backwards, sleeping.cum_writes
                    st.after_step = GradMark.take(st.params(), sleeping.backwards + j * backwards[-1] + backwards[q],
                                                  sleeping.writes + j * writes[-1] + writes[q])
            return
        st = self._states.get(id(event.optimizer))
        if st is None or st.optimizer() is not event.optimizer:
            st = self._state(event.optimizer)
        st.steps += 1
        st.last_step_tick = self.tick
        self.last_step_tick = self.tick
        st.stepped_in_call = True
        st.after_step = GradMark.take(st.params(), self.backwards, self.writes)
        first = getattr(event.optimizer, "first_update", None)
        if isinstance(event.optimizer, ManualUpdates) and first is not None:
            # By hand, a gradient may be cleared right after its own update, before the step ends.
            st.after_step = GradMark(first[0], first[1], first[2], self.backwards, self.writes)

    def on_call(self, event: CallEvent) -> None:
        self.tick += 1
        kind = event.kind
        if kind == "zero_grad":
            self._zero_grad(event)
        elif kind == "clip":
            self._clip(event)
            self.writes += 1
        elif kind == "scheduler":
            self._scheduler(event)
        elif kind == "scaler":
            self._scaler(event)
        elif kind == "loader":
            self.schedulers.new_pass(event.target)

    # --- repeated iterations (session/rhythm.py, loop/stretch.py) ------------------------------

    def wake_in(self, rhythm) -> int | None:
        """Asleep while the pattern itself decides every rule (loop/stretch.py says when); -1 (every event
        while the pattern lasts) when it does not."""
        self._stretch, wake = stretch.plan(self, rhythm)
        return wake

    def resync(self, skipped: int, prefix: tuple, rhythm) -> None:
        sleeping, self._stretch = self._stretch, None
        if sleeping is not None:
            stretch.resync(self, sleeping, skipped, prefix)

    def learning_rates(self, optimizer_id: int) -> list | None:
        st = self._states.get(optimizer_id)
        optimizer = st.optimizer() if st is not None else None
        return [g["lr"] for g in optimizer.param_groups] if optimizer is not None else None

    # --- the rules --------------------------------------------------------------------------

    def _zero_grad(self, event: CallEvent) -> None:
        target = event.target
        if isinstance(target, torch.optim.Optimizer):
            covered = self._states.get(id(target))
            if covered is None or covered.optimizer() is not target:
                covered = self._state(target)
            covered.refresh()
            ids = covered.param_ids
        elif isinstance(target, nn.Module):
            ids = self._module_params(target)
        else:
            return
        for st in self._states.values():
            st.refresh()
            if st.param_ids and (st.param_ids is ids or not st.param_ids.isdisjoint(ids)):
                st.last_zero_tick = self.tick
                st.last_zero_where = event.where
                st.after_zero = GradMark.take(st.params(), self.backwards, self.writes)

    def _clip(self, event: CallEvent) -> None:
        ids = param_ids_of(event.args[0]) if event.args else None
        owners = [st for st in self._states.values() if ids is not None and not st.param_ids.isdisjoint(ids)]
        if owners:
            fresh = all(self.last_backward_tick > st.last_step_tick for st in owners)
        else:
            fresh = self.last_backward_tick > self.last_step_tick
        if self.last_backward_tick < 0 or not fresh:
            when = "before any backward()" if self.last_backward_tick < 0 else "after optimizer.step() and before the next backward()"
            self._add("GD206", event.where, make(
                "GD206",
                f"{event.method}() runs {when}: it clips gradients that the step has already used "
                "(or that do not exist yet), so the step is not clipped.",
                evidence={"backwards": self.backwards, "before_any_backward": self.last_backward_tick < 0,
                          "backward_since_last_step": False},
                **event.where.shown(),
            ))
        elif self.scaler_used and self.last_scale_tick > self.last_step_tick and self.last_unscale_tick < self.last_scale_tick:
            self._add("GD209", event.where, make(
                "GD209",
                f"{event.method}() runs on gradients still multiplied by the GradScaler's loss scale "
                "(no scaler.unscale_(optimizer) before it): the threshold is compared with scaled gradients "
                "and clips far too much.",
                **event.where.shown(),
            ))

    def _scheduler(self, event: CallEvent) -> None:
        found = self.schedulers.stepped(event, self._steps_of, self.scaler_used)
        if found is not None:
            self._add("GD205", event.where, found)

    def _steps_of(self, optimizer) -> int | None:
        st = self._states.get(id(optimizer))
        return st.steps if st is not None else None

    def _scaler(self, event: CallEvent) -> None:
        scaler = event.target
        enabled = getattr(scaler, "is_enabled", lambda: True)()
        if event.method == "scale" and enabled:
            self.scaler_used = True
            self.last_scale_tick = self.tick
        elif event.method == "unscale_":
            self.last_unscale_tick = self.tick
            self.writes += 1
        elif event.method == "step" and event.args and isinstance(event.args[0], torch.optim.Optimizer) and enabled:
            st = self._state(event.args[0])
            st.scaler_steps += 1
            if st.scaler_where is NOWHERE:
                st.scaler_where = event.where
            if not st.stepped_in_call:
                st.scaler_skips += 1
            st.stepped_in_call = False
            self.last_unscale_tick = max(self.last_unscale_tick, self.tick)  # step unscales when needed

    def _check_eval_mode(self, st: OptimizerState, event: StepEvent) -> None:
        if st.roots is None:
            st.roots = []
            for model in known_models(self.session).values():
                if any(id(p) in st.param_ids for p in model.parameters()):
                    if any(isinstance(m, _TRAIN_MODE_MODULES) for m in model.modules()):
                        st.roots.append(weakref.ref(model))
        for ref in st.roots:
            model = ref()
            if model is not None and not model.training:
                st.eval_steps += 1
                if st.eval_where is NOWHERE:
                    st.eval_where = event.where
                    st.eval_modules = [type(m).__name__ for m in model.modules() if isinstance(m, _TRAIN_MODE_MODULES)]
                return

    # --- helpers ----------------------------------------------------------------------------

    def _state(self, optimizer: torch.optim.Optimizer) -> OptimizerState:
        st = self._states.get(id(optimizer))
        if st is None or st.optimizer() is not optimizer:
            if st is not None:
                # a freed optimizer's id, now another's: its state stays, for the findings at the end
                self._states[("freed", len(self._states))] = st
            st = OptimizerState(weakref.ref(optimizer))
            st.optimizer = weakref.ref(optimizer, st.release)  # its parameters go with it
            st.refresh()
            self._states[id(optimizer)] = st
        return st

    def on_optimizer_created(self, record) -> None:
        self._state(record.optimizer)

    def _module_params(self, module: nn.Module) -> frozenset:
        cached = self._module_ids.get(id(module))
        params = list(module.parameters())
        if cached is None or cached[0] != len(params):
            cached = (len(params), frozenset(id(p) for p in params))
            self._module_ids[id(module)] = cached
        return cached[1]

    def _no_gradient_since_zero(self, st: OptimizerState) -> bool:
        if st.after_zero is None:  # set_to_none: every gradient was None right after zero_grad
            return all(p.grad is None for p in st.params())
        return st.after_zero.untouched(self.backwards, self.writes)

    def _param_versions(self) -> int:
        return sum(p._version for m in known_models(self.session).values() for p in m.parameters())

    def _add(self, code: str, key, finding: Finding) -> None:
        self._found.setdefault((code, key if isinstance(key, int) else (key.file, key.line)), finding)

    # --- results ----------------------------------------------------------------------------

    def codes_seen(self) -> set[str]:
        return {key[0] for key in self._found}

    def stall_evidence(self) -> list[tuple[str, str]]:
        """What in the loop keeps a loss from falling, each in words with the code it names."""
        out = []
        seen = {key[0] for key in self._found}
        if "GD201" in seen:
            out.append(("gradients are never cleared, so every step applies the sum of all past gradients (GD201)",
                        "GD201"))
        if "GD202" in seen:
            out.append(("zero_grad() clears the gradients before the step reads them (GD202)", "GD202"))
        if any(st.eval_steps for st in self._states.values()):
            out.append(("the model was in eval mode while training (GD208)", "GD208"))
        for st in self._states.values():
            if st.scaler_steps and st.scaler_skips * 2 > st.scaler_steps:
                out.append((f"GradScaler skipped {st.scaler_skips} of {st.scaler_steps} steps (GD307)", "GD307"))
                break
        if self.backwards and not any(st.steps for st in self._states.values()):
            out.append(("no optimizer step ran (GD203)", "GD203"))
        return out

    def findings(self) -> list[Finding]:
        out = list(self._found.values())
        states = list(self._states.values())
        stepped = any(st.steps for st in states)
        # Two completed backward passes without a step make a loop that never steps; one
        # followed by a crash (or a one-off gradient check) does not.
        if self.completed_backwards >= 2 and not stepped and states and not any(st.scaler_steps for st in states):
            if self._versions is None or self._param_versions() == self._versions:
                out.append(make(
                    "GD203",
                    f"backward() ran {self.backwards} time{'s' if self.backwards != 1 else ''} but no optimizer "
                    "ever stepped: gradients are computed and the parameters never change.",
                    evidence={"backwards": self.backwards, "optimizer_steps": 0}, **self.first_backward.shown(),
                ))
        for st in states:
            if st.eval_steps:
                names = sorted(set(st.eval_modules))
                out.append(make(
                    "GD208",
                    f"The optimizer stepped {st.eval_steps} time{'s' if st.eval_steps != 1 else ''} while the model "
                    f"was in eval mode; its {', '.join(names)} layers behave as at inference (no dropout, frozen "
                    "batch statistics).",
                    **st.eval_where.shown(),
                ))
            if st.scaler_steps >= 8 and st.scaler_skips > self.amp_skip_fraction * st.scaler_steps:
                out.append(make(
                    "GD307",
                    f"GradScaler skipped {st.scaler_skips} of {st.scaler_steps} optimizer steps because the "
                    "scaled gradients were not finite: the model barely trains.",
                    **st.scaler_where.shown(),
                ))
        out.extend(self.schedulers.per_batch(self._steps_by_id))
        return out

    def _steps_by_id(self, key: int) -> int | None:
        st = self._states.get(key)
        return st.steps if st is not None else None


def _same_pass(st: OptimizerState, event: StepEvent) -> bool:
    """Whether a manual update begins with the parameter whose gradient the previous step marked.

    A script that trains a second model by hand after a first (PyTorch's nn_tutorial: raw tensors,
    then an nn.Module cleared with `model.zero_grad()`) updates other parameters: the mark of the
    first model's last step says nothing about the gradients of the second."""
    if not isinstance(event.optimizer, ManualUpdates) or st.after_step is None:
        return True
    updating = event.optimizer.updating
    return updating is None or updating() is st.after_step.param()


def _missing_zero_grad(event: StepEvent) -> Finding:
    if isinstance(event.optimizer, ManualUpdates):  # a loop that updates its parameters by hand
        return make(
            "GD201",
            f"The parameters are updated by hand again at step {event.step} without clearing their gradients "
            "since the previous update: the gradients of earlier batches are still in .grad and add up.",
            hint="Clear the gradients after each update: `p.grad.zero_()` for each parameter you update "
                 "(or `model.zero_grad()` before `backward()`).",
            step=event.step, evidence={"step": event.step}, **event.where.shown(),
        )
    return make(
        "GD201",
        f"{type(event.optimizer).__name__} stepped again at step {event.step} without zero_grad() "
        "since its previous step: the gradients of earlier batches are still in .grad and add up.",
        step=event.step, evidence={"step": event.step}, **event.where.shown(),
    )
