"""GD201 missing-zero-grad (error, detected at runtime and statically).

## What it does
Finds gradients accumulating across optimizer steps because they are never cleared between steps, or are cleared only under a periodic condition (`if step % log_every == 0:`) while the optimizer steps on every pass.

## Why is this bad?
`backward()` adds to `.grad`. Without clearing, each step applies the sum of every gradient so far: the update grows step after step and training diverges or oscillates.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x, y = nn.Linear(4, 1), torch.randn(8, 4), torch.randn(8, 1)
>>> optimizer = torch.optim.SGD(model.parameters(), lr=0.0)   # lr 0: only .grad changes
>>> for _ in range(3):
...     nn.functional.mse_loss(model(x), y).backward()
...     optimizer.step()
>>> once = torch.autograd.grad(nn.functional.mse_loss(model(x), y), model.weight)[0]
>>> torch.allclose(model.weight.grad, 3 * once)     # three steps' gradients, summed
True

```

## Use instead
```python
>>> for _ in range(3):
...     optimizer.zero_grad()
...     nn.functional.mse_loss(model(x), y).backward()
...     optimizer.step()
>>> torch.allclose(model.weight.grad, once)
True

```
`graddoctor lint` does not report a loop that builds a fresh optimizer on each pass
(`opt = optim.SGD(...)` then `opt.step()` in the same loop): that is a one-shot check of a
step, such as a numeric comparison of two models, not a training loop.

## Known problems
`lint` stays silent when another optimizer's `zero_grad()` runs in the same iteration and it cannot show that the two optimizers hold different parameters (two optimizers from Lightning's `self.optimizers()` over one layer: clearing one clears both). Optimizers the file builds from different sources (`G.parameters()` and `D.parameters()`) are still judged apart. A model-level `X.zero_grad()` counts as clearing an optimizer unless that optimizer is built once from `Y.parameters()` and `X` and `Y` are different modules, each built in the file without the other: `teacher.zero_grad()` does not clear a student's optimizer, `pair.zero_grad()` on a module built from both does.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD201',
    name='missing-zero-grad',
    severity=Severity.ERROR,
    detected='RS',
    hint='Call `optimizer.zero_grad()` once per optimizer step (at the start of the iteration, or right after `step()`).',
    engines=('graddoctor.observers.loop_audit',),
    doc=__doc__,
    evidence_needed=(
        'the loop audit saw two or more optimizer steps with gradients accumulated across them: no '
        '`zero_grad()` (or equivalent clearing) between the steps of that optimizer.'
    ),
)
