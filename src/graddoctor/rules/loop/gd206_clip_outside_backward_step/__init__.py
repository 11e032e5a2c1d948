"""GD206 clip-outside-backward-step (warning, detected at runtime and statically).

## What it does
Finds gradient clipping that is not between `backward()` and `step()`: after the step, or before the backward pass.

## Why is this bad?
Clipping after `step()` changes gradients that were already applied (and then cleared); clipping before `backward()` clips the previous step's gradients or nothing. Either way the update is never clipped.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x = nn.Linear(4, 1), torch.randn(8, 4)
>>> optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
>>> before = model.weight.detach().clone()
>>> (model(x) * 1000).mean().backward()
>>> optimizer.step()
>>> _ = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)   # too late
>>> bool((model.weight - before).norm() > 1.0)    # the step used the unclipped gradient
True

```

## Use instead
```python
>>> optimizer.zero_grad()
>>> before = model.weight.detach().clone()
>>> (model(x) * 1000).mean().backward()
>>> _ = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
>>> optimizer.step()
>>> bool((model.weight - before).norm() <= 1.0 + 1e-6)
True

```

## Known problems
`lint` judges the order within each path through the iteration: a clip and a step in one branch (an `else:` that unscales, clips and calls `scaler.step`) are compared only with each other and with calls outside the branch, never with a `step()` in the `if:` arm that does not run in the same pass. The same holds for GD202 and GD209.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD206',
    name='clip-outside-backward-step',
    severity=Severity.WARNING,
    detected='RS',
    hint='Clip between `loss.backward()` and `optimizer.step()`.',
    engines=('graddoctor.observers.loop_audit',),
    doc=__doc__,
    evidence_needed=(
        'gradient clipping ran after `step()` or before `backward()` in the observed order of events.'
    ),
)
