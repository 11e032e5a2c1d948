"""Judge what a loss reaches: the graph-connectivity codes GD101-GD106, GD110, GD210, GD301.

Two entry points share every rule: `check_loss_value` looks at one loss
(type, shape, finiteness, history); `check_reach` compares what one or more
backward passes reached with the parameters that should train. `diagnose()`
calls both once; a watched run calls the first per backward and the second on
what all observed backward passes reached together.
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Number

import torch

from graddoctor.finding import Finding, Related
from graddoctor.graph.naming import ModelIndex, attribute_location
from graddoctor.graph.optimizer_fix import module_expression, orphan_modules, trainable_only_call, with_params_call
from graddoctor.graph.phrases import group_by_module, name_list, plural
from graddoctor.graph.walk import GraphTrace, trace
from graddoctor.locate import Location
from graddoctor.rules import make
from graddoctor.session.registry import OptimizerRecord


def describe_value(value: object) -> str:
    """What a non-tensor loss is, in a few words (never its full repr)."""
    if isinstance(value, bool):
        return f"a Python bool ({value})"
    if isinstance(value, Number):
        return f"a Python {type(value).__name__} ({value!r})"
    module = type(value).__module__
    if module.startswith("numpy"):
        shape = getattr(value, "shape", None)
        return f"a numpy {type(value).__name__}" + (f" of shape {shape}" if shape else "")
    if isinstance(value, (list, tuple)):
        return f"a Python {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__}"


def tensor_summary(t: torch.Tensor) -> str:
    return f"shape {tuple(t.shape)}, dtype {str(t.dtype).replace('torch.', '')}, device {t.device}"


def check_loss_value(
    loss: object,
    where: Location,
    step: int | None = None,
    *,
    finiteness: bool = True,
    cuts: list | None = None,
    walk=trace,
) -> tuple[list[Finding], GraphTrace | None]:
    """Findings about the loss itself, and the graph walked from it (None if it has none).

    `cuts` are what deep mode recorded on the way to this loss (Session.cuts): with
    them a loss without history is blamed on the line that cut it.
    """
    at = where.shown()
    if not isinstance(loss, torch.Tensor):
        return [
            make(
                "GD101",
                f"The loss is {describe_value(loss)}, not a tensor: it has no autograd "
                "history, so no gradient can flow from it to the parameters.",
                step=step,
                **at,
            )
        ], None

    findings: list[Finding] = []
    if loss.numel() != 1:
        findings.append(
            make(
                "GD103",
                f"The loss has {loss.numel()} elements ({tensor_summary(loss)}); backward() "
                "needs a single number, and PyTorch raises \"grad can be implicitly created "
                "only for scalar outputs\".",
                hint=(
                    "Reduce it before backward(): `loss.mean().backward()` (or `.sum()`); with a "
                    "criterion built with `reduction='none'`, reduce its result."
                ),
                step=step,
                **at,
            )
        )
    if finiteness and (loss.is_floating_point() or loss.is_complex()):
        with torch.no_grad():
            bad = int((~torch.isfinite(loss.detach())).sum())
        if bad:
            what = "NaN" if bool(torch.isnan(loss.detach()).any()) else "infinite"
            findings.append(
                make(
                    "GD301",
                    f"The loss is {what}" + (f" in {bad} of {loss.numel()} elements" if loss.numel() > 1 else "")
                    + (f" at step {step}" if step is not None else "") + ".",
                    step=step,
                    **at,
                )
            )
    if loss.grad_fn is None:
        if loss.requires_grad:
            return findings, GraphTrace(nodes=1, leaves=[loss], leaf_ids={id(loss)})
        findings.append(cut_history(cuts or [], where, step) or _no_history(loss, at, step))
        return findings, None
    return findings, walk(loss)


def cut_history(cuts: list, backward: Location, step: int | None) -> Finding | None:
    """GD110 when a cut on the way to the loss ran with grad mode off, else GD102 at the cut."""
    located = [c for c in cuts if c.location is not None and c.location.file]
    if not located:
        return None
    back = _related(backward, "backward() called here")
    grad_off = [c for c in located if c.grad_off]
    if grad_off:
        cut = grad_off[0]
        at = cut.region_entry if cut.region_entry is not None and cut.region_entry.file else cut.location
        return make(
            "GD110",
            f"The loss was computed with gradient recording off: {cut.region_how} was in force at "
            f"{cut.location}, so the loss has no autograd history and backward() cannot reach any parameter.",
            related=_related(cut.location, "computed without gradient recording here") + back,
            step=step,
            **at.shown(),
        )
    # A freeze explains a graph-less loss only when no op cut it: frozen parameters upstream of
    # a detach() are not why the trainable ones lost their path.
    cut = ([c for c in located if c.kind != "frozen"] or located)[-1]
    return make(
        "GD102",
        f"Every path from the parameters to the loss was cut: the value {cut.what()} here"
        f"{cut.aftermath()}, so the loss has no grad_fn and backward() cannot reach any parameter.",
        hint=cut.hint(),
        related=cut.related() + back,
        step=step,
        **cut.location.shown(),
    )


def _related(loc: Location | None, note: str) -> list[Related]:
    if loc is None or not loc.file:
        return []
    shown = loc.shown()
    return [Related(shown["file"], shown["line"], note)]


def _no_history(loss: torch.Tensor, at: dict, step: int | None) -> Finding:
    if loss.is_inference():
        return make(
            "GD110",
            "The loss was computed under torch.inference_mode(): it is an inference tensor "
            "with no autograd history, so backward() cannot reach any parameter.",
            step=step,
            **at,
        )
    if not torch.is_grad_enabled():
        return make(
            "GD110",
            "The loss has no grad_fn and gradient recording is off here (inside "
            "torch.no_grad() or set_grad_enabled(False)): it was computed without autograd "
            "history.",
            step=step,
            **at,
        )
    return make(
        "GD102",
        "The loss does not require grad and has no grad_fn: every path from the parameters "
        "to it was cut (by detach(), .data, a numpy or .item() round trip, torch.tensor(...) "
        "re-wrapping, a non-differentiable op such as argmax or a comparison, or a forward "
        "pass run under torch.no_grad()).",
        step=step,
        **at,
    )


def check_reach(
    index: ModelIndex,
    optimizers: list[OptimizerRecord],
    reached: set[int],
    where: Location,
    *,
    judge: Iterable[torch.Tensor] | None = None,
    step: int | None = None,
    related: list[Related] | None = None,
    cuts: list | None = None,
) -> list[Finding]:
    """GD104/GD105/GD106/GD210 from the set of leaf ids that backward passes reached.

    `judge` are the parameters that should have got a gradient; by default the
    trainable parameters of the optimizers, or of the models when there is no
    optimizer. `cuts` (deep mode) are the cuts whose output reached the loss:
    parameters that fed one are reported at that cut, the rest at `where`.
    """
    findings: list[Finding] = []
    in_optimizer: set[int] = set()
    for record in optimizers:
        in_optimizer |= record.param_ids()
    if judge is None:
        judge = _default_judged(index, optimizers)

    missing = [p for p in judge if p.requires_grad and id(p) not in reached]
    for cut, params in _by_cut(missing, cuts or []):
        findings.append(_without_gradient(index, params, where, step, related, cut))

    groups: dict[tuple[int, str], list[torch.Tensor]] = {}
    for tid, tensor in index.hidden_tensors.items():
        if tid in reached:
            holding = index.hidden[tid]
            groups.setdefault((id(holding.holder), holding.attr), []).append(tensor)
    for tensors in groups.values():
        findings.append(_unregistered(index, tensors, in_optimizer, where, step))

    if optimizers:
        hidden_ids = set(index.hidden)
        orphans = [
            p for pid, p in index.params.items()
            if pid in reached and pid not in in_optimizer and pid not in hidden_ids and p.requires_grad
        ]
        if orphans:
            names = [index.name(p) for p in orphans]
            first = optimizers[0]
            stale = sum(1 for pid in in_optimizer if pid not in index.params and pid not in hidden_ids)
            also = (
                f" The optimizer still holds {plural(stale, 'parameter')} that no model owns any more: "
                "a layer was probably replaced after the optimizer was built."
                if stale and index.params
                else ""
            )
            related_opt = [Related(o.created_at.shown()["file"], o.created_at.line, f"{o.label} built here") for o in optimizers[1:]]
            hint = None
            if not also:
                # no layer was replaced: these modules were simply never handed to the optimizer
                modules = orphan_modules(index, orphans)
                call = with_params_call(first.optimizer, first.created_at, modules) if modules else None
                if call is not None:
                    hint = f"Give them to the optimizer where it is built: `{call}`."
            findings.append(
                make(
                    "GD106",
                    f"{name_list(names)} ({plural(len(names), 'parameter')}) receive gradients but "
                    f"belong to no optimizer ({', '.join(o.label for o in optimizers)}): they are never updated.{also}",
                    subjects=names,
                    step=step,
                    hint=hint,
                    related=related_opt,
                    **first.created_at.shown(),
                )
            )
    for record in optimizers:
        frozen = [p for p in record.params() if not p.requires_grad]
        if frozen:
            names = [index.name(p) for p in frozen]
            if len(frozen) == len(record.params()):
                # trainable-only would build an optimizer over nothing (torch raises): say what to unfreeze
                last = module_expression(index, frozen[-1])
                example = f" (for the last layer: `{last}.requires_grad_(True)`)" if last else ""
                hint = (f"Every parameter given to {record.label} is frozen, so it trains nothing. Unfreeze the "
                        f"layers that should learn before training{example}, "
                        "or drop this optimizer and its step() if nothing should train.")
            else:
                hint = f"Pass only trainable parameters: `{trainable_only_call(record.optimizer, record.created_at)}`."
            findings.append(
                make(
                    "GD210",
                    f"{record.label} was given {plural(len(frozen), 'parameter')} with requires_grad=False "
                    f"({name_list(names)}); it will skip them.",
                    hint=hint,
                    subjects=names,
                    step=step,
                    **record.created_at.shown(),
                )
            )
    return findings


def _by_cut(missing: list[torch.Tensor], cuts: list) -> list[tuple[object | None, list[torch.Tensor]]]:
    """Group parameters by the cut that separated them from the loss (None: no cut, unused)."""
    located = [c for c in cuts if c.location is not None and c.location.file]
    groups: dict[int, tuple[object | None, list[torch.Tensor]]] = {}
    for p in missing:
        cut = next((c for c in located if id(p) in c.param_ids), None)
        groups.setdefault(id(cut), (cut, []))[1].append(p)
    return list(groups.values())


def _without_gradient(
    index: ModelIndex, missing: list[torch.Tensor], where: Location, step: int | None,
    related: list[Related] | None, cut,
) -> Finding:
    names = [index.name(p) for p in missing]
    module_sizes: dict[str, int] = {}
    for pid, mod in index.module_of.items():
        module_sizes[mod] = module_sizes.get(mod, 0) + 1
    module_of = {index.names[id(p)]: index.module_of[id(p)] for p in missing if id(p) in index.names}
    shown = group_by_module(names, module_sizes, module_of)
    message = (
        f"{name_list(shown)} ({plural(len(missing), 'trainable parameter')}) received no "
        "gradient from the loss: their .grad stays None and the optimizer never changes them."
    )
    if cut is None:
        return make("GD104", message, subjects=names, step=step, related=related, **where.shown())
    message += f" Their path to the loss {cut.what()} at {cut.location}{cut.aftermath()}."
    hint = None
    if cut.grad_off:
        hint = (
            f"Run this part of the forward pass with gradient recording on (move it out of {cut.region_how}); "
            "if these parameters are meant to stay frozen, set `requires_grad_(False)` on them and leave "
            "them out of the optimizer."
        )
    elif cut.kind in ("detach", "data"):
        hint = "Remove the `.detach()` / `.data` on the training path (keep it only where the cut is meant: logging, targets, a GAN's discriminator step)."
    elif cut.kind == "number":
        hint = "Keep tensors as tensors on the training path; call `.item()` / `.tolist()` / `.numpy()` only for logging."
    hint = cut.hint() or hint
    back = _related(where, "backward() called here")
    return make(
        "GD104", message, hint=hint, subjects=names, step=step,
        related=cut.related() + back + list(related or []), **cut.location.shown(),
    )


def _unregistered(
    index: ModelIndex, tensors: list[torch.Tensor], in_optimizer: set[int], where: Location, step: int | None
) -> Finding:
    holding = index.hidden[id(tensors[0])]
    names = [index.hidden[id(t)].name for t in tensors]
    owner = f"{type(holding.holder).__name__}.{holding.attr}"
    if holding.container == "tensor":
        how = f"a plain tensor attribute `{owner}` with requires_grad=True"
        fix = f"Declare it as `self.{holding.attr} = nn.Parameter(...)` so that model.parameters() lists it."
    else:
        how = f"modules kept in a plain Python {holding.container} `{owner}`"
        wrapper = "nn.ModuleDict" if holding.container == "dict" else "nn.ModuleList"
        fix = (
            f"Wrap it: `self.{holding.attr} = {wrapper}(...)`, so that model.parameters(), "
            ".to() and state_dict() see it."
        )
    optimized = all(id(t) in in_optimizer for t in tensors)
    one = len(names) == 1
    consequence = (
        ("It reaches the loss and gets gradients" if one else "They reach the loss and get gradients")
        + f", but model.parameters() does not list {'it' if one else 'them'}"
        + ("" if optimized else ", so an optimizer built from it never updates " + ("it" if one else "them"))
        + f", and .to(device) and state_dict() skip {'it' if one else 'them'}."
    )
    loc = attribute_location(holding.holder, holding.attr)
    return make(
        "GD105",
        f"{name_list(names)} {'is' if len(names) == 1 else 'are'} held in {how}, not registered "
        f"with the module. {consequence}",
        hint=fix,
        subjects=names,
        step=step,
        **(loc.shown() if loc else where.shown()),
    )


def _default_judged(index: ModelIndex, optimizers: list[OptimizerRecord]) -> list[torch.Tensor]:
    if optimizers:
        seen: set[int] = set()
        out = []
        for record in optimizers:
            for p in record.params():
                if id(p) not in seen:
                    seen.add(id(p))
                    out.append(p)
        return out
    return index.trainable()
