"""GD111 gradient-always-zero: parameters whose gradient exists but is exactly zero on every step.

Measured from the per-parameter norms LayerStats already reads back once per
optimizer step (no extra reduction, no extra host read): a parameter counts
when its gradient was present, and it is reported when it was zero on every
one of at least `MIN_STEPS` measured steps. Located at the op that zeroed it
when deep mode saw one (a step function, a clamp at its bound, a dead ReLU, one
time step taken from a bidirectional RNN's output), else at the line that
defines the parameter's module.
"""

from __future__ import annotations

from graddoctor.finding import Finding, Related
from graddoctor.graph.naming import attribute_location, unwrap
from graddoctor.graph.phrases import name_list, plural
from graddoctor.internal import known_models
from graddoctor.locate import Location
from graddoctor.rules import make

# A zero-initialised layer (ReZero, a zeroed last BatchNorm gamma) gives zero gradients
# upstream on the first step only; five steps in a row is no longer an initial state.
MIN_STEPS = 5


def gradient_always_zero(stats) -> list[Finding]:
    always: dict[int, tuple] = {}  # param id -> (param, name, steps)
    for key, layout in stats._layouts.items():
        for pos, p in enumerate(layout.params):
            steps = layout.zero_steps[pos]
            if (steps >= MIN_STEPS and not layout.moved[pos] and p.requires_grad and id(p) not in always
                    and not _left_behind(stats, id(p), key)):
                always[id(p)] = (p, layout.param_names[pos], steps)
    if not always:
        return []
    zeroing = stats.session.consult(stats.deep, lambda deep: deep.zeroing_ops(), [])
    always = _drop_shift_invariant_biases(always, zeroing)
    if not always:
        return []
    models = known_models(stats.session)
    groups: dict[tuple, list] = {}
    for pid, entry in always.items():
        # The op nearest the loss that zeroes this parameter's path: it zeroes everything upstream.
        op = next((z for z in reversed(zeroing) if pid in z.param_ids), None)
        defined = _definition(models, entry[0])
        key = ("op", id(op)) if op is not None else ("def", defined.file if defined else None, defined.line if defined else None)
        groups.setdefault(key, [op, defined, []])[2].append(entry)
    out = []
    for op, defined, entries in groups.values():
        out.append(_finding(stats, op, defined, entries))
    return out


def _left_behind(stats, pid: int, optimizer: int) -> bool:
    """Whether the parameter belongs to earlier work: no loss of its optimizer reaches it, or every loss
    that reaches it stopped before a later loss of the same optimizer (a script's next section) ran on
    its own, without reaching it.

    Its gradient then stays at whatever the earlier phase left (zeroed by hand at its last update): no
    backward writes it any more, so its zeros say nothing about the loss. Tutorial scripts with several
    sections keep their first section's tensors at module level while the later sections train others.
    """
    series = [s for s in stats.loss_series.series.values() if s.optimizer == optimizer and s.graph.reaches]
    reaching = [s for s in series if pid in s.graph.reaches]
    if not reaching:
        # No loss of this optimizer reaches it: its gradient is what earlier work left (a model still
        # alive from a notebook's previous cell), never written here, so "the loss reaches it" is unmeasured.
        return bool(series)
    ended = max(s.last_step for s in reaching)
    return any(pid not in s.graph.reaches and s.first_step > ended and s.count >= MIN_STEPS for s in series)


def _drop_shift_invariant_biases(always: dict, zeroing: list) -> dict:
    """Keep out a bias whose own layer's weight learns and that no op zeroed.

    A loss that does not change when a layer's outputs all shift by the same amount
    (a WGAN critic's `D(fake).mean() - D(real).mean()`, a layer followed by BatchNorm)
    gives that layer's bias exactly zero gradient by design, while its weight learns.
    A dead ReLU or a clamp zeroes the weight too, so those are still reported.
    """
    names = {entry[1] for entry in always.values()}
    zeroed = {pid for z in zeroing for pid in z.param_ids}
    return {pid: entry for pid, entry in always.items()
            if not (entry[1].endswith("bias") and pid not in zeroed
                    and entry[1][: -len("bias")] + "weight" not in names)}


def _finding(stats, op, defined: Location | None, entries: list) -> Finding:
    names = [name for _, name, _ in entries]
    steps = min(s for _, _, s in entries)
    message = (f"{name_list(names)} ({plural(len(names), 'parameter')}) had a gradient on each of at least "
               f"{steps} optimizer steps, and it was exactly zero every time: the loss reaches "
               f"{'it' if len(names) == 1 else 'them'}, but the optimizer never moves {'it' if len(names) == 1 else 'them'}.")
    related: list[Related] = []
    hint = None
    if op is not None:
        message += f" On the way to the loss, {op.describe()}."
        hint = _hint(op)
        at = op.location
        if defined is not None and defined.file:
            shown = defined.shown()
            related.append(Related(shown["file"], shown["line"], "the parameter's module is defined here"))
    else:
        at = defined if defined is not None and defined.file else stats.last_backward
    return make("GD111", message, hint=hint, subjects=names, related=related,
                evidence={"zero_steps": steps, "parameters": len(entries)}, **at.shown())


def _hint(op) -> str:
    if op.fix:
        return op.fix
    if not op.saturated:
        return (f"`{op.op}` has no useful gradient: pass the gradient straight through "
                f"(`y = x + (torch.{op.op}(x) - x).detach()`), or keep `{op.op}` out of the training path.")
    if op.op in ("relu", "relu6", "threshold"):
        return ("The ReLU's input is negative for every element (a dead ReLU): drop the activation on the "
                "output, use LeakyReLU/GELU, or fix the initialisation or learning rate that pushed it below 0.")
    return (f"Every value is outside the bounds of `{op.op}`, where its gradient is 0: start the parameter "
            "inside the bounds, or bound a smooth function of it (`torch.sigmoid`, `softplus`) instead of clamping it.")


def _definition(models: dict, param) -> Location | None:
    """The user's line that defines the module (or attribute) holding `param`."""
    for model in models.values():
        model = unwrap(model)
        for mod_name, module in model.named_modules():
            for p_name, p in module._parameters.items():
                if p is not param:
                    continue
                path = (mod_name.split(".") if mod_name else []) + [p_name]
                # innermost holder first: `self.scale = nn.Parameter(...)`, else `self.fc = nn.Linear(...)`
                for depth in range(len(path), 0, -1):
                    holder = model.get_submodule(".".join(path[:depth - 1]))
                    found = attribute_location(holder, path[depth - 1])
                    if found is not None:
                        return found
                return None
    return None
