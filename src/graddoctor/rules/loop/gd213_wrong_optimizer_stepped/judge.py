"""GD213: a backward for one optimizer's parameters, then a step of another optimizer, again and again.

Per optimizer that has not stepped yet, one parameter that only it holds is watched
(its gradient object and version, read around each backward: no tensor data on the
hot path). A backward that writes that gradient "reaches" the optimizer; a step of a
different optimizer after it is the candidate wrong step; the gradient cleared again
(None, a new tensor, or zeroed in place) before the watched optimizer ever stepped is
the measured harm: gradients computed for its parameters and thrown away. Two such
cycles, and no step of the watched optimizer in the whole run, make the finding.

An optimizer that steps every k iterations keeps its gradients until it steps
(nothing is cleared unused) and steps at some point: never reported.
"""

from __future__ import annotations

import ast
import sys
import weakref
from dataclasses import dataclass

from graddoctor.finding import Finding
from graddoctor.graph.phrases import related_at
from graddoctor.locate import Location, frame_locals
from graddoctor.rules import make
from graddoctor.session.observer import BackwardEvent, Observer, StepEvent

MIN_WASTED = 2  # gradients cleared unused this often before the finding is made


@dataclass
class _Watch:
    optimizer: weakref.ref
    created_at: Location
    label: str
    param: weakref.ref
    exclusive: int  # how many parameters only this optimizer holds
    before: tuple | None = None  # (grad id, version) before the current backward
    reached: Location | None = None  # the backward that last wrote the watched gradient
    grad: tuple | None = None  # (grad weakref, version) right after that backward
    other: tuple | None = None  # (step line, optimizer) of the first other step after it
    wasted: int = 0
    first: tuple | None = None  # (backward line, step line, stepped optimizer) of the first wasted cycle
    stepped: bool = False
    name: str | None = None  # the user's variable for the optimizer, when known


class WrongOptimizerStepped(Observer):
    name = "wrong-optimizer"
    codes = frozenset({"GD213"})

    def __init__(self) -> None:
        self._watched: dict[int, _Watch] = {}
        self._stepped: set[int] = set()
        self._known = -1

    # --- events -----------------------------------------------------------------------------

    def before_backward(self, event: BackwardEvent) -> None:
        records = self.session.optimizers()
        if len(records) != self._known:
            self._known = len(records)
            self._watch(records)
        for w in self._watched.values():
            if w.stepped:
                continue
            self._settle(w)
            p = w.param()
            grad = p.grad if p is not None else None
            w.before = (id(grad), grad._version) if grad is not None else None

    def after_backward(self, event: BackwardEvent) -> None:
        for w in self._watched.values():
            p = w.param()
            if w.stepped or p is None or p.grad is None:
                continue
            now = (id(p.grad), p.grad._version)
            if now != w.before:
                w.reached = event.where
                w.grad = (weakref.ref(p.grad), p.grad._version)
                w.other = None

    def before_step(self, event: StepEvent) -> None:
        for w in self._watched.values():
            if w.optimizer() is event.optimizer:
                w.stepped = True  # it steps: whatever came before was accumulation, not waste
            elif not w.stepped and w.reached is not None and w.other is None:
                w.other = (event.where, _name_at(event.where) or type(event.optimizer).__name__)
                if w.name is None:
                    w.name = _name_at(w.created_at, assigned=True) or _variable_for(w.optimizer(), event.where)

    def wake_in(self, rhythm) -> int | None:
        """Once every watched optimizer has stepped it has nothing left to judge (a new optimizer
        changes the pattern); until then, a gradient wasted at each iteration counts: every one."""
        if self._known == len(self.session.optimizers()) and all(w.stepped for w in self._watched.values()):
            return None
        return 0

    # --- the judgement ----------------------------------------------------------------------

    def _watch(self, records) -> None:
        held: dict[int, int] = {}
        for record in records:
            for p in record.params():
                held[id(p)] = held.get(id(p), 0) + 1
        for record in records:
            key = id(record.optimizer)
            w = self._watched.get(key)
            if w is not None and w.optimizer() is record.optimizer:
                continue
            own = [p for p in record.params() if held[id(p)] == 1 and p.requires_grad]
            if own:
                self._watched[key] = _Watch(weakref.ref(record.optimizer), record.created_at, record.label,
                                            weakref.ref(own[0]), len(own))

    def _settle(self, w: _Watch) -> None:
        """Before a backward: was the gradient of the last reaching backward cleared, unused?"""
        if w.reached is None or w.grad is None or w.other is None:
            return
        p = w.param()
        if p is None:
            return
        old, version = w.grad
        grad = p.grad
        cleared = grad is None or grad is not old() or (grad._version != version and not bool(grad.any()))
        if cleared:
            w.wasted += 1
            if w.first is None:
                w.first = (w.reached, w.other[0], w.other[1])
            w.reached, w.grad, w.other = None, None, None

    def findings(self) -> list[Finding]:
        out = []
        for w in self._watched.values():
            opt = w.optimizer()
            if w.stepped or w.wasted < MIN_WASTED or w.first is None or opt is None:
                continue
            backward, step, stepped_name = w.first
            mine = w.name or w.label
            model = self._owner(w)
            whose = f" of `{model}`" if model else ""
            message = (f"backward() at line {backward.line} computes gradients for {w.exclusive} parameter"
                       f"{'s' if w.exclusive != 1 else ''}{whose} that only `{mine}` holds, then "
                       f"`{stepped_name}.step()` runs at line {step.line}: `{mine}` never stepped in the whole run, "
                       f"and those gradients were cleared unused {w.wasted} times, so these parameters never change.")
            hint = (f"Call `{mine}.step()` after this backward instead of `{stepped_name}.step()` "
                    "(each optimizer steps after the backward of its own loss).")
            related = related_at(backward, f"the backward whose gradients `{mine}` should apply")
            related += related_at(w.created_at, f"`{mine}` is created here and never steps")
            out.append(make(
                "GD213", message, hint=hint, related=related, subjects=[model] if model else [],
                evidence={"wasted_gradients": w.wasted, "never_stepped": mine, "stepped_instead": stepped_name,
                          "exclusive_parameters": w.exclusive, "backward_line": backward.line},
                cause={"stepped": stepped_name, "never_stepped": w.name}, **step.shown(),
            ))
        return out

    def _owner(self, w: _Watch) -> str | None:
        p = w.param()
        if p is None:
            return None
        for label, model in self.session.models().items():
            if any(q is p for q in model.parameters()):
                return label
        return None


def _variable_for(optimizer, where: Location) -> str | None:
    """The name the user's frame at `where` holds `optimizer` under: a variable, or `self.<attr>`."""
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_filename == where.file and frame.f_lineno == where.line):
        frame = frame.f_back
    if frame is None or optimizer is None:
        return None
    variables = frame_locals(frame)
    for scope in (variables, frame.f_globals):
        for key, value in scope.items():
            if value is optimizer and key.isidentifier():
                return key
    owner = variables.get("self")
    for key, value in vars(owner).items() if hasattr(owner, "__dict__") else ():
        if value is optimizer:
            return f"self.{key}"
    return None


def _name_at(where: Location | None, assigned: bool = False) -> str | None:
    """The optimizer's name in the user's line: the receiver of `X.step()`, or the target of `X = Adam(...)`."""
    text = where.source.strip() if where is not None else ""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if assigned and isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, (ast.Name, ast.Attribute)):
                return ast.unparse(target)
        if not assigned and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "step" and isinstance(node.func.value, (ast.Name, ast.Attribute)):
            return ast.unparse(node.func.value)
    return None
