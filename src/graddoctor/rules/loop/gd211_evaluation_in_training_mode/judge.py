"""GD211: an evaluation pass run while dropout / batch-norm layers are in training mode.

The evidence, per trained model (a root module whose parameters an optimizer has
stepped, holding dropout, batch norm or instance norm with running statistics):
a forward pass of it, made in training mode after its first step, whose output
cannot have trained anything:

- it never reached a backward (under `no_grad`/`inference_mode` it has no graph;
  otherwise a pre-hook on its output's `grad_fn` says whether a backward got there
  before the model's next optimizer step), and
- no backward at all ran between it and the model's next forward (or the end of
  the run): a GAN generator sampled under `no_grad` whose images the discriminator
  then learns from, a teacher or target network, a detached bootstrap target all
  have a backward after them, so they are not evaluations;
- its input is not the batch the model has just trained on (accuracy read on the
  training batch after the step measures the training forward again).

Cost: one forward hook per trained root model, called once per call of the model
(never for its submodules); it reads the grad mode and the user's frame, and for a
forward with a graph registers one pre-hook on its output's node. Nothing reads
tensor data. A dropout layer the user switched to training mode by hand
(`m.train()` on the layer itself: MC dropout) is never counted.
"""

from __future__ import annotations

import ast
import linecache
import re
import sys
import weakref
from dataclasses import dataclass, field

import torch
from torch import nn

from graddoctor.finding import Finding, Related, Severity
from graddoctor.internal import record_internal_error
from graddoctor.locate import display_path, user_frame
from graddoctor.loop import train_modes
from graddoctor.rules import make
from graddoctor.session.observer import BackwardEvent, Observer, StepEvent

SENSITIVE = (nn.modules.dropout._DropoutNd, nn.modules.batchnorm._BatchNorm, nn.modules.instancenorm._InstanceNorm)
_MAX_PENDING = 256  # forwards kept per model between two of its steps (an evaluation loop over a big set)


def _sensitive(module: nn.Module) -> bool:
    """Whether the module's output differs between training and eval mode: dropout that drops
    (p > 0; `drop_rate=0.0` is the same in both), a norm layer with running statistics."""
    if isinstance(module, nn.modules.dropout._DropoutNd):
        return float(module.p) > 0
    if isinstance(module, (nn.modules.batchnorm._BatchNorm, nn.modules.instancenorm._InstanceNorm)):
        return bool(module.track_running_stats)
    return False


@dataclass
class _Forward:
    where: tuple  # (file, line, function) of the user's call
    grad: bool  # made with a graph (it could have been backpropagated)
    backwards: int  # the observer's backward count when it ran
    steps: int  # the model's optimizer steps before it
    layers: tuple[str, ...]  # the train-mode sensitive layer types
    reached: bool = False
    handle: object = None


@dataclass
class _Model:
    ref: weakref.ref
    label: str
    param_ids: frozenset
    layers: list  # the sensitive submodules
    handle: object = None
    steps: int = 0
    pending: list = field(default_factory=list)
    last_input: tuple | None = None  # (id, shape) of the last input it trained on
    last_output: int = 0  # id of its last output
    feeds_model: bool = False  # its output is another model's input: a generator, an encoder
    modes_version: int = -1
    modes: tuple[str, ...] = ()


class EvaluationInTrainingMode(Observer):
    name = "evaluation_mode"
    codes = frozenset({"GD211"})
    # Its bound methods hooked on user modules are graddoctor's: never pickled or copied with them.
    _graddoctor_hidden_when_compiled = True

    def __init__(self) -> None:
        self.models: dict[int, _Model] = {}
        self.backwards = 0
        self.in_backward = False
        self.found: dict[tuple, tuple[_Model, _Forward, int]] = {}  # (model, line) -> first evaluation, count
        # optimizer id -> (the optimizer, weakly: a freed one's id may be the next fold's; its models)
        self._optimizers: dict[int, tuple[weakref.ref, list[_Model]]] = {}
        self._readers: dict[int, object] = {}  # root id -> the hook handle of a model without such layers
        self.eval_lines: set[tuple] = set()  # (file, line) of forwards seen in eval mode: lint's GD211 there is wrong

    # --- lifetime ---------------------------------------------------------------------------

    def start(self, session) -> None:
        super().start(session)
        train_modes.listen(self)

    def stop(self) -> None:
        train_modes.unlisten(self)
        for handle in self._readers.values():
            handle.remove()
        self._readers = {}
        # A run cut short by an exception stopped mid-step: its last forward is no evaluation.
        crashed = getattr(self.session, "crashed", False)
        for model in self.models.values():
            if model.handle is not None:
                model.handle.remove()
                model.handle = None
            self._close(model, final=not crashed)
            for record in model.pending:
                self._drop(record)
            model.pending = []

    # --- events -----------------------------------------------------------------------------

    def before_backward(self, event: BackwardEvent) -> None:
        self.backwards += 1
        self.in_backward = True

    def after_backward(self, event: BackwardEvent) -> None:
        self.in_backward = False

    def before_step(self, event: StepEvent) -> None:
        optimizer = event.optimizer
        entry = self._optimizers.get(id(optimizer))
        if entry is None or entry[0]() is not optimizer:
            self._optimizers = {key: e for key, e in self._optimizers.items() if e[0]() is not None}
            entry = self._optimizers[id(optimizer)] = (weakref.ref(optimizer), self._discover(optimizer))
        for model in entry[1]:
            self._close(model, final=True)

    def after_step(self, event: StepEvent) -> None:
        for model in self._optimizers.get(id(event.optimizer), (None, ()))[1]:
            model.steps += 1

    # --- repeated iterations (session/rhythm.py) ------------------------------------------------

    def wake_in(self, rhythm) -> int | None:
        """With no model hooked (none holds dropout or a norm layer with running statistics, the
        models of the MLPs and most dispatch-bound loops) nothing happens between its events: every
        repeated iteration can be missed, the backwards counted in `resync`. A new optimizer (the one
        event that hooks models: `before_step` discovers its models) changes the pattern and brings it
        back. With a hooked model its hook records each forward against the backwards and steps as
        they come: it sees every iteration."""
        if self.models or self._readers:
            return 0
        return None

    def resync(self, skipped: int, prefix: tuple, rhythm) -> None:
        self.backwards += skipped * rhythm.backwards + sum(1 for k in prefix if k[0] == "backward")

    # --- the models -------------------------------------------------------------------------

    def _discover(self, optimizer: torch.optim.Optimizer) -> list[_Model]:
        ids = frozenset(id(p) for g in optimizer.param_groups for p in g["params"])
        out = []
        roots = self.session.models()
        for label, root in roots.items():
            model = self.models.get(id(root))
            if model is None or model.ref() is not root:
                layers = [m for m in root.modules() if _sensitive(m)]
                if not layers or getattr(root, "_compiled_call_impl", None) is not None:
                    continue  # (`model.compile()` would trace a new hook: it would recompile)
                model = _Model(weakref.ref(root), label, frozenset(id(p) for p in root.parameters()), layers)
                model.handle = root.register_forward_hook(self._hook(model))
                self.models[id(root)] = model
            if not model.param_ids.isdisjoint(ids):
                out.append(model)
        if self.models:
            # The other models only tell whether a watched model's output is their input (a generator's).
            for label, root in roots.items():
                if id(root) not in self.models and id(root) not in self._readers and \
                        getattr(root, "_compiled_call_impl", None) is None:
                    self._readers[id(root)] = root.register_forward_hook(self._reader_hook)
        return out

    def _reader_hook(self, module: nn.Module, args, output) -> None:
        if args and isinstance(args[0], torch.Tensor) and not torch.compiler.is_compiling():
            self._fed(id(args[0]), None)  # a comparison of ints: nothing here can fail

    def _fed(self, input_id: int, model: _Model | None) -> None:
        for other in self.models.values():
            if other.last_output == input_id and other is not model:
                other.feeds_model = True

    def _hook(self, model: _Model):
        def hook(module: nn.Module, args, output) -> None:
            if self.in_backward or torch.compiler.is_compiling():
                return
            if not module.training:
                frame = user_frame(sys._getframe(1))
                if frame is not None and len(self.eval_lines) < _MAX_PENDING:
                    self.eval_lines.add((display_path(frame.f_code.co_filename), frame.f_lineno))
                return
            try:
                self._forward(model, args, output)
            except Exception:  # our bookkeeping never becomes the user's failure
                record_internal_error(self.session, "GD211 forward hook")
                model.handle.remove()

        hook._graddoctor_hidden_when_compiled = True  # type: ignore[attr-defined]
        return hook

    def _forward(self, model: _Model, args, output) -> None:
        first = next((a for a in args if isinstance(a, torch.Tensor)), None)
        key = (id(first), tuple(first.shape)) if first is not None else None
        node = _grad_fn(output) if torch.is_grad_enabled() else None
        out = _first_tensor(output)
        model.last_output = id(out) if out is not None else 0
        if first is not None:
            self._fed(id(first), model)
        if node is not None:
            model.last_input = key
        elif key is not None and key == model.last_input:
            return  # the training batch read again (an accuracy after the step)
        if model.steps == 0 or model.last_input is None:
            return  # not trained yet (or its training forward not seen yet): nothing to judge by
        layers = self._train_mode_layers(model)
        if not layers:
            return
        frame = user_frame(sys._getframe(2))
        if frame is None:
            return
        record = _Forward((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name),
                          node is not None, self.backwards, model.steps, layers)
        if node is not None:
            def reached(grad_outputs, record=record):
                record.reached = True

            record.handle = node.register_prehook(reached)
        self._close(model, final=False)
        if len(model.pending) < _MAX_PENDING:
            model.pending.append(record)

    def _train_mode_layers(self, model: _Model) -> tuple[str, ...]:
        if model.modes_version != train_modes.version[0]:
            model.modes_version = train_modes.version[0]
            model.modes = tuple(sorted({type(m).__name__ for m in model.layers
                                        if m.training and not train_modes.explicitly_set(m)}))
        return model.modes

    def _close(self, model: _Model, final: bool) -> None:
        """Judge the forwards waiting since the model's last step: at its next forward (`final`
        False: only those followed by no backward, without a graph), at its step or the end (all)."""
        keep = []
        for record in model.pending:
            if record.backwards != self.backwards or record.reached:
                self._drop(record)  # a backward ran after it: it may have fed training
            elif record.grad and not final:
                keep.append(record)  # it may still be backpropagated (two forwards, one loss)
            else:
                self._drop(record)
                key = (id(model), record.where[:2])
                seen = self.found.get(key)
                self.found[key] = (model, seen[1], seen[2] + 1) if seen else (model, record, 1)
        model.pending = keep

    @staticmethod
    def _drop(record: _Forward) -> None:
        if record.handle is not None:
            record.handle.remove()
            record.handle = None

    # --- results ----------------------------------------------------------------------------

    def findings(self) -> list[Finding]:
        out = []
        for model, record, count in self.found.values():
            if model.feeds_model:
                continue  # a generator sampled in training mode: what GAN code does on purpose
            file, line, function = record.where
            metric = metric_line(file, line)
            layers = ", ".join(record.layers)
            how = "under no_grad" if not record.grad else "whose output never reached a backward"
            passes = f"{count} forward pass{'es' if count != 1 else ''}"
            message = (f"`{model.label}` ran {passes} here {how} (an evaluation) while in training mode, "
                       f"after {record.steps} optimizer step{'s' if record.steps != 1 else ''}: its {layers} layers "
                       "behave as in training (dropout drops activations at random, batch norm normalises with "
                       "the evaluation batch and overwrites its running statistics with it).")
            evidence = {"forwards": count, "layers": list(record.layers), "after_steps": record.steps,
                        "metric_line": metric}
            # The harm is a wrong metric: without a comparison or a loss in the function that evaluates
            # (sampling text with dropout left on, "to add some chaos"), the mode may be meant.
            severity = None if metric is not None else Severity.INFO
            out.append(make("GD211", message, file=display_path(file), line=line, severity=severity,
                             evidence=evidence, related=self._related(model, file, line), subjects=[model.label]))
        return out

    def static_contradicted(self, finding: Finding) -> bool:
        """A static GD211 at a line where this run saw the model evaluated in eval mode is wrong:
        the caller switched it (`encoder.eval(); decoder.eval()` before `evaluate()`)."""
        return finding.code == "GD211" and (finding.file, finding.line) in self.eval_lines

    def _related(self, model: _Model, file: str, line: int) -> list[Related]:
        root = model.ref()
        set_where = train_modes.last_set(root) if root is not None else None
        if set_where is not None and set_where[0] and set_where[1].file:
            where = set_where[1]
            return [Related(display_path(where.file), where.line, "training mode set here by train()")]
        built = _construction_line(file, model.label, line)
        if built is not None:
            return [Related(display_path(file), built, "built here, in training mode; eval() is never called")]
        return []


def _grad_fn(output):
    if isinstance(output, torch.Tensor):
        return output.grad_fn
    if isinstance(output, (tuple, list)):
        for item in output:
            if isinstance(item, torch.Tensor) and item.grad_fn is not None:
                return item.grad_fn
    if isinstance(output, dict):
        return _grad_fn(tuple(output.values()))
    return None


def _first_tensor(output) -> torch.Tensor | None:
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, (tuple, list)):
        return next((item for item in output if isinstance(item, torch.Tensor)), None)
    return None


_METRIC_CALL = re.compile(r"(loss|criterion|accura|metric|score|f1|precision|recall|mse|mae|cross_entropy|nll|"
                          r"bleu|perplex|auc|correct)", re.IGNORECASE)


def metric_line(file: str, line: int) -> int | None:
    """The first line, in the function that runs the forward at `line` (or the module-level statement
    around it), that compares with something or calls a loss or metric: where the outputs become a
    number someone reads as the model's quality. None when there is none (sampling, generation)."""
    try:
        tree = ast.parse("".join(linecache.getlines(file)))
    except (SyntaxError, ValueError):
        return line  # unreadable: assume the worst, as before
    scope = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.lineno <= line <= (node.end_lineno or node.lineno):
            if scope is None or node.lineno > scope.lineno:
                scope = node  # the innermost function
    if scope is None:
        scope = next((n for n in tree.body if n.lineno <= line <= (n.end_lineno or n.lineno)), None)
    if scope is None:
        return None
    for node in ast.walk(scope):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            return node.lineno
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "eq" or _METRIC_CALL.search(name):
                return node.lineno
    return None


def _construction_line(file: str, name: str, before: int) -> int | None:
    """The line of `name = Something(...)` in `file` nearest above line `before`: the model's construction."""
    try:
        tree = ast.parse("".join(linecache.getlines(file)))
    except (SyntaxError, ValueError):
        return None
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Call, ast.Tuple)) and node.lineno < before:
            for target in node.targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                if any(isinstance(n, ast.Name) and n.id == name for n in names):
                    found = max(found or 0, node.lineno)
    return found
