"""GD106 parameter-not-in-optimizer: parameters that get gradients but that no optimizer holds.

Said as a replaced layer when the optimizer still holds parameters that no
model owns any more; otherwise the fix is the user's own optimizer call with
the missing modules added. (A whole model replaced by a copy is told apart by
`observers/replaced_models.py`.)
"""

from __future__ import annotations

import ast
import linecache

from torch import nn

from graddoctor.finding import Finding, Related, Severity
from graddoctor.graph.naming import ModelIndex
from graddoctor.graph.optimizer_call import orphan_modules, with_params_call
from graddoctor.graph.phrases import name_list, plural
from graddoctor.locate import Location
from graddoctor.rules import make
from graddoctor.session.registry import OptimizerRecord


def parameters_not_in_optimizer(
    index: ModelIndex, optimizers: list[OptimizerRecord], reached: set[int], in_optimizer: set[int],
    step: int | None,
) -> list[Finding]:
    out: list[Finding] = []
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
        held = [p for o in optimizers for p in o.params()]
        if held and not any(isinstance(p, nn.Parameter) for p in held):
            # `Adam([image])`: style transfer, adversarial inputs, latent search optimize an input
            # through a fixed network; its weights' gradients are a by-product, not a model left out.
            out.append(make(
                "GD106",
                f"{optimizers[0].label} holds only input tensors, no model parameter; the network's "
                f"{plural(len(names), 'parameter')} ({name_list(names)}) receive gradients that nothing uses.",
                hint="If the network stays fixed, freeze it (`requires_grad_(False)`) to save the backward work.",
                severity=Severity.INFO, subjects=names, step=step,
                evidence={"optimizer_holds_only_inputs": len(held), "unused_gradients": len(names)},
                **first.created_at.shown(),
            ))
            return out
        part = None if also else _one_submodule(index, optimizers)
        if part is not None:
            # `optim.Adam(model._fc.parameters())`: fine-tuning one part on purpose; the rest only
            # costs backward work. Worth knowing, not an error.
            out.append(make(
                "GD106",
                f"{optimizers[0].label} holds exactly the parameters of `{part}`; the other "
                f"{plural(len(names), 'parameter')} ({name_list(names)}) receive gradients that nothing uses.",
                hint=f"If only `{part}` should train, freeze the rest (`requires_grad_(False)`) to save the "
                     "backward work; otherwise give them to the optimizer too.",
                severity=Severity.INFO, subjects=names, step=step,
                evidence={"optimizer_holds": part, "unused_gradients": len(names)},
                **first.created_at.shown(),
            ))
            return out
        hint = None
        if not also:
            # no layer was replaced: these modules were simply never handed to the optimizer
            modules = orphan_modules(index, orphans)
            call = with_params_call(first.optimizer, first.created_at, modules) if modules else None
            if call is not None:
                hint = f"Give them to the optimizer where it is built: `{call}`."
        where, cause = first.created_at.shown(), None
        replaced = _replacement_line(first.created_at, sorted({index.module_of.get(id(p), "") for p in orphans})) if also else None
        if replaced is not None:
            # the cause is the line that put the new layer in: named there, the optimizer as the other line
            where = {"file": where["file"], "line": replaced, "column": None}
            related_opt.insert(0, Related(where["file"], first.created_at.line,
                                          f"{first.label} built here, before the layer was replaced"))
            cause = {"optimizer_line": first.created_at.line}
        out.append(
            make(
                "GD106",
                f"{name_list(names)} ({plural(len(names), 'parameter')}) receive gradients but "
                f"belong to no optimizer ({', '.join(o.label for o in optimizers)}): they are never updated.{also}",
                subjects=names,
                step=step,
                hint=hint,
                related=related_opt,
                evidence={"unused_gradients": len(names), "stale_parameters": stale},
                cause=cause,
                **where,
            )
        )
    return out


def _replacement_line(built: Location, modules: list[str]) -> int | None:
    """The first assignment to one of `modules` (`model.fc = nn.Linear(...)`) below the optimizer's line."""
    if not built.file or not built.line or not modules:
        return None
    try:
        tree = ast.parse("".join(linecache.getlines(built.file)))
    except (SyntaxError, ValueError):
        return None
    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assign) and node.lineno > built.line
             and any(ast.unparse(t) in modules for t in node.targets)]
    return min(lines, default=None)


def _one_submodule(index: ModelIndex, optimizers: list[OptimizerRecord]) -> str | None:
    """The submodule whose parameters are exactly those of the one optimizer (`Adam(model._fc.parameters())`)."""
    if len(optimizers) != 1:
        return None
    held = optimizers[0].param_ids()
    if not held:
        return None
    for label, model in index.models.items():
        for name, module in model.named_modules():
            if name and {id(p) for p in module.parameters()} == held:
                return f"{label}.{name}"
    return None
