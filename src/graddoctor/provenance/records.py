"""What deep mode remembers: cuts, in-place edits and inference tensors, by site.

Records hold locations, names, shapes and ids, never the user's tensors or
graph nodes, so keeping them costs no memory the user would notice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graddoctor.finding import Related
from graddoctor.locate import Location

# Kinds of cut, each with the words a message uses for it.
GRAD_OFF = "grad-off"
DETACH = "detach"
DATA = "data"
NUMBER = "number"
REWRAP = "rewrap"
NON_DIFFERENTIABLE = "non-differentiable"
CHECKPOINT_INPUT = "checkpoint-input"  # inside a reentrant checkpoint none of whose inputs requires grad
FROZEN = "frozen"  # not a cut of a path: the parameters themselves were set to requires_grad=False


@dataclass
class Cut:
    """One place where a tensor that requires grad gave a result that does not."""

    id: int
    kind: str
    op: str  # "detach", "item", "argmax", "linear" (under no_grad) ...
    location: Location | None  # the cut's own user line
    chain: list[Location] = field(default_factory=list)  # innermost first, up to the caller
    region_entry: Location | None = None  # where grad mode was turned off (GRAD_OFF only)
    region_how: str = ""
    param_ids: set[int] = field(default_factory=set)  # leaves that fed the cut's input
    count: int = 0
    # A numpy or list round trip: where a new tensor was built from the cut's values.
    rebuilt: tuple[Location, str] | None = None
    # `requires_grad_(True)` / `.requires_grad = True` set on the cut's output: backward() then
    # runs, and stops at that new leaf.
    revived: Location | None = None
    frozen_ids: set[int] = field(default_factory=set)  # FROZEN: the parameters it froze
    # The parameters of the optimizers stepped after a backward of a loss this cut reached: what
    # that loss trains. A cut whose loss trains other parameters (a GAN's discriminator step, a
    # target network) is needed there, and is not why these parameters got no gradient.
    trained_ids: set[int] = field(default_factory=set)
    backward: Location | None = None  # the first backward() of a loss the cut reached
    subject: str = ""  # FROZEN: what was frozen ("Net", "fc1.weight and 3 more")
    model_label: str = ""  # FROZEN: the user's name of the model frozen whole ("model", "net")
    # The cut's value (or one computed from it) went, with grad mode on, into an op that also took a
    # trainable leaf (`head(feats)`): layers that train were fed by what the cut froze. When it never
    # did, the value reached the loss only as a target (a distillation teacher's logits).
    fed_trained: bool = False

    @property
    def grad_off(self) -> bool:
        return self.kind == GRAD_OFF

    def describe(self) -> str:
        """The cut in a few words, for messages ("`.detach()`", "torch.no_grad()" ...)."""
        return self.what() + self.aftermath()

    def what(self) -> str:
        """How the cut was made, said of the value ("was cut by `.detach()`")."""
        if self.kind == GRAD_OFF:
            return f"ran under {self.region_how}"
        if self.kind == DETACH:
            return "was cut by `.detach()`"
        if self.kind == DATA:
            return "was cut by `.data`"
        if self.kind == NUMBER:
            return f"was turned into a Python number by `.{self.op}()`"
        if self.kind == REWRAP:
            return f"was re-wrapped by `torch.{self.op}(...)`, which copies values without history"
        if self.kind == CHECKPOINT_INPUT:
            return f"ran inside {self.region_how}, none of whose inputs requires grad"
        if self.kind == FROZEN:
            what = f" ({self.subject})" if self.subject else ""
            return f"was computed only from parameters frozen by `{self.op}`{what}"
        return f"went through `{self.op}`, which has no gradient"

    def aftermath(self) -> str:
        """What the user did with the cut value next: a rebuilt tensor, requires_grad_(True)."""
        out = ""
        if self.rebuilt is not None:
            out += (f" and rebuilt as a new tensor without history by `{self.rebuilt[1]}` at "
                    f"{self.rebuilt[0]} (a round trip through numpy or Python values)")
        if self.revived is not None:
            out += (f"; `requires_grad_(True)` at {self.revived} only makes that copy a new leaf, so "
                    "backward() runs but stops there and no gradient reaches the parameters")
        return out

    def hint(self) -> str | None:
        """The fix when it differs from the rule's default one."""
        if self.kind == FROZEN:
            undo = f"`{self.model_label}.requires_grad_(True)`" if self.model_label else "`requires_grad_(True)`"
            return (f"Remove `{self.op}` for the parameters you train (freeze only the part meant "
                    f"to stay fixed, e.g. a pretrained backbone), or undo it before training with {undo}.")
        if self.revived is not None:
            return ("Keep the computation in torch from the model's output to the loss (no `.numpy()` / "
                    "`.tolist()` / `torch.tensor(...)` copy), and remove the `requires_grad_(True)`: "
                    "it hides the cut instead of repairing it.")
        return None

    def related(self) -> list[Related]:
        """The lines around the cut: where grad mode went off, and the calls leading to it."""
        out: list[Related] = []
        for loc, note in ((self.rebuilt[0] if self.rebuilt else None, "new tensor without history built here"),
                          (self.revived, "requires_grad_(True) here hides the cut: backward() stops at this leaf")):
            if loc is not None and loc.file:
                shown = loc.shown()
                out.append(Related(shown["file"], shown["line"], note))
        if self.region_entry is not None and self.region_entry.file:
            shown = self.region_entry.shown()
            out.append(Related(shown["file"], shown["line"], f"gradient recording turned off here by {self.region_how}"))
        for outer in self.chain[1:]:
            if self.location is not None and (outer.file, outer.line) == (self.location.file, self.location.line):
                continue
            shown = outer.shown()
            out.append(Related(shown["file"], shown["line"], f"called from {outer.function or 'here'}"))
        return out


@dataclass
class InplaceEdit:
    """An in-place op on a tensor that takes part in autograd."""

    op: str
    location: Location
    chain: list[Location]
    shape: tuple[int, ...]
    version_before: int
    version_after: int
    producer: str | None  # the tensor's grad_fn class before the edit, e.g. "SigmoidBackward0"
    leaf: bool  # a leaf that requires grad (a parameter)
    step: int
    after: str | None = None  # its grad_fn class after the edit, e.g. "AddBackward0"
    optimizer: str | None = None  # an optimizer's step() made the edit (its class name)
    param_id: int | None = None  # the parameter edited (leaf edits)


@dataclass
class DataWrite:
    """An edit through `.data` of a tensor that requires grad (autograd cannot see it)."""

    param_id: int
    op: str
    location: Location
    after_forward: bool  # graph-recording ops ran since the last backward
    step: int


@dataclass
class InferenceBirth:
    """Where a tensor was created under torch.inference_mode()."""

    location: Location | None
    region_entry: Location | None
    shape: tuple[int, ...]


@dataclass
class NanOrigin:
    """The first op of an escalated deep window whose result held NaN/Inf while its inputs did not."""

    op: str  # "log", "div", ...
    location: Location | None  # the op's own user line
    chain: list[Location]  # user frames, innermost first (the helper, then forward(), then the loop)
    step: int  # optimizer steps taken when it ran
    value: str  # "nan", "inf" or "-inf": what the result held first

    def called_from(self) -> str:
        outer = [loc for loc in self.chain[1:] if loc.function]
        return f" (in {self.location.function}(), called from {outer[0].function}())" if (
            outer and self.location is not None and self.location.function) else ""


@dataclass
class ZeroingOp:
    """An op of the deep steps whose gradient to its input was zero everywhere (GD111's cause)."""

    op: str  # "round", "clamp", "relu" ...
    location: Location  # the op's own user line
    chain: list[Location]  # user frames, innermost first
    saturated: bool  # a bound hit by every element (clamp, dead ReLU), not a step function
    param_ids: set[int] = field(default_factory=set)  # leaves that fed its input
    count: int = 0
    why: str = ""  # how it zeroes them, when not by its derivative ("{where}" stands for its line)
    fix: str = ""  # the fix, when not GD111's for step functions and bounds

    def describe(self) -> str:
        if self.why:
            return self.why.format(where=self.location)
        if self.saturated:
            return f"`{self.op}` at {self.location} had every element at its bound (its gradient is 0 there)"
        return f"`{self.op}` at {self.location} is a step function (its gradient is 0 everywhere)"
