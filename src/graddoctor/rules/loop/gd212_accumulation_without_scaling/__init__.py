"""GD212 accumulation-without-scaling (warning with SGD, info with adaptive optimizers; detected at runtime and statically).

## What it does
Finds gradient accumulation whose micro-batch losses are not scaled: the same loss line, a per-batch mean (`reduction='mean'`, `.mean()`), is backpropagated N >= 2 times before every optimizer step, and the tensor given to `backward()` is the loss function's output itself, not `loss / N`.

## Why is this bad?
`backward()` adds into `.grad`: N unscaled means add up to N times the mean gradient of the N micro-batches. With SGD (and momentum) the step is N times larger than the one the learning rate was tuned for, as if the learning rate were multiplied by the number of accumulation steps; changing the accumulation count then changes the training, and a learning rate that was stable without accumulation can diverge with it. Adam, AdamW, RMSprop, Adagrad and the other adaptive optimizers divide the gradient by its own running magnitude, so a constant factor cancels (up to `eps`): there the finding is information only, but gradient clipping thresholds and weight decay relative to the gradient still see N times the gradient, and switching to SGD later would bite.

## Example
```python
>>> import torch
>>> from torch import nn
>>> _ = torch.manual_seed(0)
>>> model, accum_steps = nn.Linear(4, 1), 4
>>> batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(accum_steps)]
>>> for x, y in batches:
...     loss = nn.functional.mse_loss(model(x), y)
...     loss.backward()                    # 4 means add up: 4 x the gradient
>>> summed = model.weight.grad.clone()

```

## Use instead
```python
>>> model.zero_grad()
>>> for x, y in batches:
...     loss = nn.functional.mse_loss(model(x), y)
...     (loss / accum_steps).backward()    # the mean over the 4 micro-batches
>>> torch.allclose(summed / accum_steps, model.weight.grad)
True

```

## When it warns
A warning needs the backward and step counts of the run: the same backward line called N >= 2 times between two optimizer steps on at least 2 steps (and on at least half of that step line's steps), each time on a per-batch mean loss with no division or multiplication after the loss function (the graph's last node is the loss function's own, e.g. `NllLossBackward0` with `reduction='mean'`, or `MeanBackward0`), with an SGD-family optimizer. The same with Adam-family optimizers is reported as information.

`graddoctor lint` reports it before anything runs when the loop shows it whole: a `loss.backward()`
(or `scaler.scale(loss).backward()`) on every pass and an optimizer step under `if (i + 1) % N == 0:`,
where `loss` is bound in the loop straight from a loss that averages (a loss module or `F.*_loss` with
the default reduction, `.mean()`, a model output's `.loss`) and is never divided or multiplied on the
way. It is a warning when the file builds that optimizer as `SGD` or `ASGD`, information otherwise.

## Correct code it stays silent on
Losses meant to add (one backward per task, per GAN half, `reduction='sum'` divided by the token count as Hugging Face does it, several losses summed into one backward) are left alone: each sits on its own line, or the graph shows the division or the sum. A loss scaled by a GradScaler is read through the scaler's multiplication. Statically, lint stays silent on a loss divided anywhere on the way (`criterion(...) / N`, `loss /= N`, `(loss / N).backward()`), on `reduction='sum'`, on `accelerator.backward(loss)` (Accelerate divides by its accumulation count itself), on a loss made by the user's own helper, and on a loop that clears gradients on every pass.

## Known problems
A loop over tasks that calls backward on the same line once per task before one step looks like accumulation and is reported the same way.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD212',
    name='accumulation-without-scaling',
    severity=Severity.WARNING,
    detected='RS',
    hint='Divide each micro-batch loss by the number of accumulation steps before backward: '
         '`(loss / accum_steps).backward()`.',
    doc=__doc__,
    evidence_needed=(
        "the same loss line, a per-batch mean never divided (its last graph node is the loss function's own), backpropagated N >= 2 times between two optimizer steps on at least 2 steps and on at least half of that step line's steps; a warning only when the optimizer steps in proportion to the gradient (SGD, ASGD), info with adaptive optimizers that cancel a constant factor; evidence: backwards per step, steps, optimizer."
    ),
)
