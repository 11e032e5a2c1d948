"""DistributedDataParallel: unused parameters (GD401) and replica fingerprints for GD402.

GD401 is judged on the rank itself, from what the first backward passes
reached. GD402 needs every rank: this observer only records, at a few sampled
steps, an exact fingerprint of each replica parameter; rank 0 compares them
when the ranks' results are merged (see `merge.py`). Nothing is sent between
ranks during training, so the user's collectives are never disturbed.
"""

from __future__ import annotations

import re

import torch
from torch import nn

from graddoctor.finding import Finding, Related
from graddoctor.graph.phrases import name_list, plural
from graddoctor.locate import Location, user_location
from graddoctor.rules import make
from graddoctor.graph.naming import ModelIndex
from graddoctor.internal import known_models
from graddoctor.session.observer import BackwardEvent, Observer, StepEvent

REDUCTION_ERROR = re.compile(r"Expected to have finished reduction in the prior iteration")
_INT_VIEW = {8: torch.int64, 4: torch.int32, 2: torch.int16, 1: torch.int8}
FINGERPRINT_CHUNK = 1 << 24  # elements


def ddp_modules(models: dict[str, nn.Module]) -> list[nn.parallel.DistributedDataParallel]:
    ddp_type = nn.parallel.DistributedDataParallel
    return [m for root in models.values() for m in root.modules() if isinstance(m, ddp_type)]


def fingerprint(t: torch.Tensor) -> int:
    """An exact, order-independent checksum of a tensor's bits: equal bits give equal sums.

    Summing the bits read as integers is exact (integer addition does not
    depend on the reduction order or thread count, float sums do), so identical
    replicas can never be told apart by rounding.
    """
    data = t.detach()
    if data.is_complex():
        data = torch.view_as_real(data)
    view = _INT_VIEW.get(data.element_size())
    if view is None or data.dtype == torch.bool:
        data = data.to(torch.float64)
        view = torch.int64
    # By chunks: sum(dtype=int64) first copies its input to int64, which for a whole embedding
    # table would be 2 to 8 times the parameter's memory at once; a chunk's copy is at most 128 MB.
    # Each chunk's sum fits in int64 (2^24 values below 2^63 / 2^24 when 4 bytes or fewer; 8-byte
    # values wrap alike on every rank), and Python adds the chunk sums exactly.
    flat = data.contiguous().view(view).reshape(-1)
    return sum(int(chunk.sum(dtype=torch.int64)) for chunk in flat.split(FINGERPRINT_CHUNK))


class DDPObserver(Observer):
    name = "ddp"
    # GD402 is judged on rank 0 from the fingerprints recorded here (runner/gather.py).
    codes = frozenset({"GD401", "GD402"})

    def __init__(self, walk_first: int = 3, sample_first: int = 3, sample_every: int = 10, max_samples: int = 20):
        # GD402's schedule: optimizer steps 1..sample_first, then one step in every `sample_every`. Past
        # `max_samples` the later samples are thinned to every other one and the interval doubles (10, 20,
        # 40... steps), so the samples stay at most `max_samples` and still span the whole run.
        self.walk_first = walk_first
        self.sample_first = sample_first
        self.sample_every = sample_every
        self.max_samples = max_samples
        self._ddp: list[nn.parallel.DistributedDataParallel] | None = None
        self._ran: set[int] = set()  # DDP wrappers whose forward ran since their hooks were added
        self._reached: set[int] = set()
        self._walked = 0
        self._backward: Location | None = None
        self._backward_step = 1
        self._step_index = 0
        self.samples: list[dict] = []
        self._indexes: list[int] = []  # the step index of each sample, for thinning
        self._gd401: Finding | None = None
        self._hooks: list = []
        self._stopped = False
        self._inside = 0  # DDP forwards in progress: the wrapped module's own call is no bypass
        self.unwrapped: Location | None = None  # a training forward of the wrapped module without DDP

    def _live_ddp(self) -> list:
        """Every DDP wrapper alive among the models, the ones this run trains or not."""
        if self._ddp is None:
            self._ddp = ddp_modules(self.session.models())
            for ddp in self._ddp if not self._stopped else ():  # findings() after stop() hooks nothing
                self._hooks += [ddp.register_forward_pre_hook(self._enter), ddp.register_forward_hook(self._leave),
                                ddp.module.register_forward_pre_hook(self._bypass)]
        return self._ddp

    def _find_ddp(self) -> list:
        """The DDP wrappers this session saw at work: a forward through it, or a walked backward that
        reached its parameters. A wrapper left alive by earlier work in the process (a notebook's
        previous cell, an earlier test) is among the live models but not this run's: judged, every
        one of its parameters would read as unused (a false GD401)."""
        return [ddp for ddp in self._live_ddp()
                if id(ddp) in self._ran or any(id(p) in self._reached for p in ddp.module.parameters())]

    def stop(self) -> None:
        self._stopped = True
        for handle in self._hooks:
            handle.remove()
        self._hooks = []

    # --- what made the replicas differ: the model called without its wrapper ----------------------

    def _enter(self, module, args) -> None:
        self._inside += 1
        self._ran.add(id(module))

    def _leave(self, module, args, output) -> None:
        self._inside = max(0, self._inside - 1)

    def _bypass(self, module, args) -> None:
        # `model.module(x)` in training: its gradients never pass DDP's all-reduce, so this rank's
        # update differs from the others'. (An evaluation under no_grad changes nothing.)
        if self._inside or self.unwrapped is not None or not torch.is_grad_enabled() or not module.training:
            return
        if torch.compiler.is_compiling():
            return
        self.unwrapped = user_location()

    def _named(self, ddp) -> list[tuple[str, torch.Tensor]]:
        """The parameters of the model DDP wraps, named as every finding names them (`model.aux.weight`),
        so that GD401 supersedes the GD104 of the same parameters."""
        names = ModelIndex(known_models(self.session)).names
        return [(names.get(id(p), n), p) for n, p in ddp.module.named_parameters()]

    # --- GD401 ---------------------------------------------------------------------------------

    def before_backward(self, event: BackwardEvent) -> None:
        if event.index >= self.walk_first or not self._live_ddp():
            return
        if self._backward is None:
            self._backward = event.where
            self._backward_step = event.step
        for loss in event.loss if isinstance(event.loss, (list, tuple)) else [event.loss]:
            if isinstance(loss, torch.Tensor) and loss.grad_fn is not None:
                self._reached |= event.trace(loss).leaf_ids
                self._walked += 1

    def wake_in(self, rhythm) -> int | None:
        """Without a DistributedDataParallel model (looked for at the first backward passes) it has
        nothing to do; with one, it samples steps by its own schedule: every iteration."""
        return None if self._ddp == [] else 0

    def _unused(self) -> list[tuple[nn.parallel.DistributedDataParallel, list[str]]]:
        out = []
        for ddp in self._find_ddp():
            names = [n for n, p in self._named(ddp) if p.requires_grad and id(p) not in self._reached]
            if names:
                out.append((ddp, names))
        return out

    def _unused_finding(self) -> Finding | None:
        if self._gd401 is not None or not self._walked or self._backward is None:
            return self._gd401
        unused = self._unused()
        if not unused:
            return None
        ddp, names = unused[0]
        finds = bool(getattr(ddp, "find_unused_parameters", False))
        effect = (
            "DDP searches the graph for them on every step (find_unused_parameters=True) and they never train."
            if finds
            else "DDP waits for their gradients to all-reduce them, so the next forward pass raises "
            "\"Expected to have finished reduction in the prior iteration before starting a new one\"."
        )
        self._gd401 = make(
            "GD401",
            f"{name_list(names)} ({plural(len(names), 'parameter')} of the DistributedDataParallel model "
            f"{type(ddp.module).__name__}) took no part in the forward pass that this backward ran through: "
            f"{effect}",
            subjects=names,
            step=self._backward_step,
            **self._backward.shown(),
        )
        return self._gd401

    def explain_exception(self, exc: BaseException, where: Location) -> list[Finding]:
        if not REDUCTION_ERROR.search(str(exc)):
            return []
        finding = self._unused_finding()
        if finding is None:
            return []
        if where.file and not any(r.line == where.line for r in finding.related):
            # stored, so that the report's GD401 names the line that raised too
            self._gd401 = finding = finding.with_(related=[
                *finding.related, Related(where.shown()["file"], where.line, "the next forward pass raised here")])
        return [finding]

    def findings(self) -> list[Finding]:
        finding = self._unused_finding()
        return [finding] if finding is not None else []

    # --- GD402: fingerprints for rank 0 to compare ---------------------------------------------

    def after_step(self, event: StepEvent) -> None:
        index = self._step_index
        self._step_index += 1
        if index >= self.sample_first and index % self.sample_every:
            return
        ddps = self._find_ddp()
        if not ddps:
            return
        where = event.where if event.where.file else user_location()
        with torch.no_grad():
            prints = {
                name: fingerprint(p) for d, ddp in enumerate(ddps)
                for name, p in ((f"{d}:{n}" if d else n, p) for n, p in self._named(ddp))
            }
        sample = {"step": event.step, "file": where.shown()["file"], "line": where.line, "prints": prints}
        if self.unwrapped is not None and self.unwrapped.file:
            sample["cause"] = {"file": self.unwrapped.shown()["file"], "line": self.unwrapped.line, "kind": "unwrapped"}
        self.samples.append(sample)
        self._indexes.append(index)
        while len(self.samples) > max(self.max_samples, self.sample_first):
            self._thin()

    def _thin(self) -> None:
        """Sample half as often from now on, and keep the earlier samples that fit that schedule."""
        self.sample_every *= 2
        keep = [i for i, index in enumerate(self._indexes)
                if index < self.sample_first or index % self.sample_every == 0]
        self.samples = [self.samples[i] for i in keep]
        self._indexes = [self._indexes[i] for i in keep]
