"""GD212 (static): a loop that steps once every N iterations (`if (i + 1) % N == 0:`) and backpropagates
the loss function's per-batch mean on every iteration, never divided by N.

Only what the source shows for sure: the backward and the guarded step both written in the loop, the
loss bound in the loop straight from a loss that averages (a loss module or `F.*_loss` with the
default reduction, `.mean()`, a model output's `.loss`), with no division or product on the way to
`backward()`, and no `zero_grad` on every iteration (that would be a different loop: no accumulation
at all). Backwards through an object that scales by itself (`accelerator.backward(loss)`) are not
`loss.backward()` and are never read here. With SGD the steps are N times too large (warning);
with Adam-family optimizers a constant factor mostly cancels (information, as at run time).

No `lint --fix` rewrite: dividing the loss changes what the program backpropagates (the step size),
which only `graddoctor fix --verify` can show is right by running it; lint gives the hint.
"""

from __future__ import annotations

import ast

from graddoctor.finding import Severity
from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted, keyword
from graddoctor.lint.reporter import Reporter

CODE = "GD212"

# Losses of torch.nn.functional whose default reduction is the batch mean.
_MEAN_LOSSES = frozenset(
    "cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy "
    "binary_cross_entropy_with_logits kl_div soft_margin_loss multilabel_soft_margin_loss "
    "cosine_embedding_loss margin_ranking_loss hinge_embedding_loss triplet_margin_loss "
    "poisson_nll_loss gaussian_nll_loss multi_margin_loss".split()
)
# Optimizers whose step is proportional to the gradient: N summed means give N times the step.
_PROPORTIONAL = frozenset({"SGD", "ASGD"})


def _modulus(test: ast.expr) -> ast.expr | None:
    """The `N` of `... % N == 0` (also inside `... or last_batch`, and `not ... % N`)."""
    for node in ast.walk(test):
        if type(node) is ast.Compare and len(node.ops) == 1 and type(node.ops[0]) is ast.Eq:
            sides = (node.left, node.comparators[0])
            zero = [s for s in sides if type(s) is ast.Constant and s.value == 0]
            mod = [s for s in sides if type(s) is ast.BinOp and type(s.op) is ast.Mod]
            if zero and mod:
                return mod[0].right
        if type(node) is ast.UnaryOp and type(node.op) is ast.Not and type(node.operand) is ast.BinOp \
                and type(node.operand.op) is ast.Mod:
            return node.operand.right
    return None


def _reduction_is_mean(call: ast.Call) -> bool:
    reduction = keyword(call, "reduction")
    if reduction is None:
        return keyword(call, "size_average") is None and keyword(call, "reduce") is None
    return type(reduction) is ast.Constant and reduction.value == "mean"


def _averaged(a: FileAnalysis, value: ast.expr, unit) -> bool:
    """Whether `value` is, as written, a loss that averages over its batch."""
    if type(value) is ast.Call:
        func = value.func
        name = call_name(value)
        if name in _MEAN_LOSSES:
            return _reduction_is_mean(value)
        if type(func) is ast.Attribute and func.attr == "mean" and not value.args and not value.keywords:
            return True
        built = a.names.call.get(dotted(func) or "")
        if a.names.of(func) == "loss" and built is not None:
            return _reduction_is_mean(built)
        return False
    if type(value) is ast.Attribute and value.attr == "loss" and type(value.value) is ast.Name:
        # `outputs.loss` of `outputs = model(**batch)`: a Hugging Face model's mean token loss
        made = a.binding_before(unit, value.value.id, value.lineno)
        if made is None or type(made.value) is not ast.Call:
            return False
        called = made.value.func
        return a.names.of(called) == "module" or "model" in (dotted(called) or "").rsplit(".", 1)[-1].lower()
    return False


def _one_pass(a: FileAnalysis, it):
    """The (backward, step) pair of a loop that steps on a modulus guard, both written in the loop."""
    loop = it.node
    inside = range(loop.lineno, (loop.end_lineno or loop.lineno) + 1)
    events = [e.within(loop) for e in it.events]
    backwards = [e for e in events if e.kind == "backward"]
    steps = [e for e in events if e.kind == "step"]
    if len(backwards) != 1 or not steps or backwards[0].conditional or backwards[0].nested:
        return None
    if any(e.kind == "opaque" for e in events):
        return None
    if any(e.kind == "zero_grad" and not e.conditional for e in events):
        return None  # cleared on every pass: gradients never accumulate (another bug, not this one)
    step = steps[0]
    if step.nested or not step.conditional or any(e.line not in inside for e in (backwards[0], step)):
        return None
    guard = next((m.node for m in reversed(step.path) if hasattr(m, "node") and type(m.node) is ast.If
                  and m.index == 0), None)
    count = _modulus(guard.test) if guard is not None else None
    if count is None or (type(count) is ast.Constant and (type(count.value) is not int or count.value < 2)):
        return None
    return backwards[0], step, count


def _optimizer_class(a: FileAnalysis, unit, step) -> str | None:
    """`SGD` for the optimizer the step calls: the one built in the same function before the step, else
    the one class every binding of that name in the file builds (None when unknown or several)."""
    if step.target is None:
        return None
    here = a.binding_before(unit, step.target, step.line)
    if here is not None and type(here.value) is ast.Call and a.names.classify_call(here.value) == "optimizer":
        return call_name(here.value)
    built = [b.value for u in a.units for b in u.bindings.get(step.target, ())]
    classes = {call_name(v) if type(v) is ast.Call and a.names.classify_call(v) == "optimizer" else None
               for v in built}
    return classes.pop() if len(classes) == 1 else None


def check(a: FileAnalysis, r: Reporter) -> None:
    for it in iterations(a):
        if it.kind != "loop":
            continue
        found = _one_pass(a, it)
        if found is None:
            continue
        backward, step, count = found
        recv = backward.node.func.value if type(backward.node.func) is ast.Attribute else None
        if backward.scaled and type(recv) is ast.Call and len(recv.args) == 1:
            recv = recv.args[0]  # scaler.scale(loss).backward()
        if type(recv) is not ast.Name or backward.node.args or backward.node.keywords:
            continue  # `(loss / N).backward()`, `accelerator.backward(loss)`: scaled, or not ours to read
        made = a.binding_before(it.unit, recv.id, backward.line)
        if made is None or not it.node.lineno <= made.line <= backward.line:
            continue  # made outside the loop, or below the backward (last pass's value)
        if any(type(s.target) is ast.Name and s.target.id == recv.id and made.line < s.lineno <= backward.line
               for s, _ in a.augassigns):
            continue  # `loss /= accum_steps`
        if not _averaged(a, made.value, it.unit):
            continue
        n = a.segment(count)
        optimizer = _optimizer_class(a, it.unit, step)
        proportional = optimizer in _PROPORTIONAL
        said = (f"`{recv.id}` is a per-batch mean, backpropagated on every pass while the optimizer steps once "
                f"every `{n}` passes (line {step.line}): the gradients of those passes add up to `{n}` times their mean")
        if proportional:
            said += f", so each `{optimizer}` step is that many times the step its learning rate was tuned for."
        else:
            who = f"`{optimizer}`" if optimizer else "An adaptive optimizer (the Adam family)"
            said += (f". {who} mostly cancels a constant factor, but gradient clipping and anything else read "
                     "from the gradients see it, and with SGD each step would be that many times too large.")
        r.add(
            CODE,
            said,
            backward.node,
            related=[r.related(step.line, f"steps once every `{n}` backwards"),
                     r.related(made.line, "the per-batch mean, never divided")],
            hint=f"Divide the loss by the accumulation count before backward: `({recv.id} / {n}).backward()`.",
            severity=Severity.WARNING if proportional else Severity.INFO,
            evidence={"accumulation": n, "optimizer": optimizer, "static": True},
        )
