"""What a name refers to, judged from how the file builds it: optimizer, scheduler, module...

Keys are dotted source names (`optimizer`, `self.opt_g`). The judgement is
file-wide and deliberately simple: a name assigned from `torch.optim.Adam(...)`
is an optimizer; failing that, a name that *reads* like one (`opt_d`) is taken
as one only where a check asks for it (see `looks_like_optimizer`).
"""

from __future__ import annotations

import ast
import re

OPTIMIZERS = frozenset(
    "SGD Adam AdamW Adamax Adagrad Adadelta RMSprop Rprop LBFGS NAdam RAdam SparseAdam ASGD Adafactor "
    "Lion LAMB Lamb FusedAdam FusedLAMB AdamW8bit Adam8bit PagedAdamW ZeroRedundancyOptimizer".split()
)
# Schedulers meant to be stepped once per epoch: stepping them every batch
# shrinks the learning rate hundreds of times faster than written.
EPOCH_SCHEDULERS = frozenset("StepLR MultiStepLR ExponentialLR ReduceLROnPlateau".split())
SCHEDULER_FACTORIES = frozenset(
    "get_scheduler get_linear_schedule_with_warmup get_cosine_schedule_with_warmup "
    "get_constant_schedule_with_warmup get_polynomial_decay_schedule_with_warmup "
    "get_cosine_with_hard_restarts_schedule_with_warmup get_constant_schedule".split()
)
CONVERSIONS = frozenset({"item", "tolist", "numpy"})
NUMBER_BUILTINS = frozenset({"float", "int"})

_OPT_NAME = re.compile(r"(^|_)(opt|optim|optimizer|optimiser)s?($|_|[A-Z0-9])|^opt|optimi[sz]er", re.I)
_SCHED_NAME = re.compile(r"sched|lr_s", re.I)


def dotted(node: ast.AST) -> str | None:
    """`self.opt` for an Attribute chain of Names; None for anything else (memoised on the node)."""
    kind = type(node)
    if kind is ast.Name:
        return node.id
    if kind is not ast.Attribute:
        return None
    try:
        return node._gd_dotted  # type: ignore[attr-defined]
    except AttributeError:
        pass
    node._gd_dotted = result = _dotted(node)  # type: ignore[attr-defined]
    return result


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def item_key(node: ast.AST) -> str | None:
    """`self.optimizers['g']` for a constant-key item of a dotted container, None for anything else.

    Keys of this form name the items of a dict or list literal one by one (`self.optimizers = {"g":
    Adam(...), "d": Adam(...)}`), so that two optimizers kept in one container stay two optimizers.
    """
    if type(node) is not ast.Subscript or type(node.slice) is not ast.Constant:
        return None
    index = node.slice.value
    container = dotted(node.value)
    return f"{container}[{index!r}]" if container is not None and type(index) in (str, int) else None


def call_name(call: ast.Call) -> str:
    """The last component of what is called: `Adam` for `torch.optim.Adam(...)`."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def strip_to(value: ast.expr) -> ast.expr:
    """`X(...).to(device)` / `.cuda()` keep what X(...) is."""
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in ("to", "cuda", "cpu", "train", "eval", "double", "float", "half")
    ):
        value = value.func.value
    return value


class Names:
    """File-wide classification of dotted names by the constructor assigned to them."""

    def __init__(self, module_classes: set[str]):
        self.module_classes = module_classes  # classes in this file that subclass nn.Module
        self.kind: dict[str, str] = {}  # dotted -> optimizer | scheduler | scaler | module | loss | accelerator
        self.cls: dict[str, str] = {}  # dotted -> constructor name (scheduler class, loss class)
        self.call: dict[str, ast.Call] = {}
        # dotted -> `Name(...)` call it was last assigned from, whatever its kind: instances of the
        # file's own plain classes (`diffusion = Diffusion(model)`), whose methods value flow follows
        self.constructed: dict[str, ast.Call] = {}
        self.containers: dict[str, list[str]] = {}  # dotted container -> item keys of the optimizers it holds
        self._opt_cache: dict[str, bool] = {}  # filled only once learning is over (checks run after the walk)

    def learn(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            # `model, optimizer = accelerator.prepare(model, optimizer)` keeps each kind.
            return
        key = dotted(target)
        if key is None:
            return
        value = strip_to(value)
        if isinstance(value, (ast.Dict, ast.List, ast.Tuple)):
            self._learn_items(key, value)
            return
        if not isinstance(value, ast.Call):
            if isinstance(value, (ast.Name, ast.Attribute)):
                other = dotted(value)
                if other in self.constructed:  # `self.agent = agent`: the same instance
                    self.constructed[key] = self.constructed[other]
                if other in self.kind:
                    self.kind[key] = self.kind[other]
                    if other in self.cls:
                        self.cls[key] = self.cls[other]
            return
        if type(value.func) is ast.Name and value.func.id[:1].isupper():
            self.constructed[key] = value
        kind = self.classify_call(value)
        if kind:
            self.kind[key] = kind
            self.cls[key] = call_name(value)
            self.call[key] = value

    def _learn_items(self, key: str, value: ast.Dict | ast.List | ast.Tuple) -> None:
        """Optimizers and schedulers built inside a dict or list literal, each under its item key."""
        if type(value) is ast.Dict:
            pairs = [(k.value, v) for k, v in zip(value.keys, value.values) if type(k) is ast.Constant]
        else:
            pairs = list(enumerate(value.elts))
        for index, item in pairs:
            item = strip_to(item)
            if type(index) not in (str, int) or not isinstance(item, ast.Call):
                continue
            kind = self.classify_call(item)
            if kind in ("optimizer", "scheduler"):
                name = f"{key}[{index!r}]"
                self.kind[name], self.cls[name], self.call[name] = kind, call_name(item), item
                self.containers.setdefault(key, []).append(name)

    def classify_call(self, call: ast.Call) -> str | None:
        name = call_name(call)
        func = dotted(call.func) or ""
        if name in OPTIMIZERS:
            return "optimizer"
        if name == "DistributedOptimizer":
            # torch.distributed.rpc: gradients live in each `dist_autograd.context()` and are
            # stepped with its id; there is nothing to zero between steps.
            return "dist_optimizer"
        if name in SCHEDULER_FACTORIES or "lr_scheduler" in func or (name.endswith("LR") and name[:1].isupper()):
            return "scheduler"
        if name == "ReduceLROnPlateau" or name.endswith("Scheduler"):
            return "scheduler"
        if name == "GradScaler":
            return "scaler"
        if name in ("Accelerator", "Fabric"):
            return "accelerator"
        if name.endswith("Loss") and name[:1].isupper():
            return "loss"
        if name in self.module_classes or func.startswith(("nn.", "torch.nn.")) and name[:1].isupper():
            return "module"
        if name == "from_pretrained" or name.endswith(("Model", "LMHeadModel")) and name[:1].isupper():
            return "module"
        return None

    def of(self, node: ast.AST | str | None) -> str | None:
        key = node if isinstance(node, str) or node is None else dotted(node) or item_key(node)
        return self.kind.get(key) if key else None

    def is_optimizer(self, node: ast.AST) -> bool:
        key = dotted(node) if type(node) is not ast.Subscript else item_key(node)
        if key is not None:
            found = self._opt_cache.get(key)
            if found is None:
                found = self._opt_cache[key] = self._is_optimizer(node)
            return found
        return self._is_optimizer(node)

    def _is_optimizer(self, node: ast.AST) -> bool:
        kind = self.of(node)
        if kind is not None:
            return kind == "optimizer"
        text = _last(node)
        return bool(text) and bool(_OPT_NAME.search(text)) and not _SCHED_NAME.search(text)

    def is_scheduler(self, node: ast.AST) -> bool:
        kind = self.of(node)
        if kind is not None:
            return kind == "scheduler"
        text = _last(node)
        return bool(text) and bool(_SCHED_NAME.search(text))

    def is_scaler(self, node: ast.AST) -> bool:
        kind = self.of(node)
        if kind is not None:
            return kind == "scaler"
        text = _last(node)
        return bool(text) and "scaler" in text.lower()


def _last(node: ast.AST) -> str:
    """The readable last part of a receiver: `opt_g` for `self.opt_g`, `opts` for `opts[0]`."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""
