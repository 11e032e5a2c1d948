"""GD202 zero-grad-before-step (error, detected at runtime and statically).

## What it does
Finds `zero_grad()` called between `backward()` and `step()`.

## Why is this bad?
The gradients just computed are cleared before the optimizer reads them, so `step()` skips every parameter (with `zero_grad(set_to_none=False)`, only weight decay and momentum from earlier steps still move them): the model does not learn.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x, y = nn.Linear(4, 1), torch.randn(8, 4), torch.randn(8, 1)
>>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
>>> before = model.weight.detach().clone()
>>> loss = nn.functional.mse_loss(model(x), y)
>>> loss.backward()
>>> optimizer.zero_grad()
>>> optimizer.step()
>>> torch.equal(model.weight, before)    # nothing was applied
True

```

## Use instead
```python
>>> optimizer.zero_grad()
>>> loss = nn.functional.mse_loss(model(x), y)
>>> loss.backward()
>>> optimizer.step()
>>> torch.equal(model.weight, before)
False

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD202',
    name='zero-grad-before-step',
    severity=Severity.ERROR,
    detected='RS',
    hint='Move `zero_grad()` before `backward()` (or after `step()`).',
    engines=('graddoctor.observers.loop_audit',),
    doc=__doc__,
    evidence_needed=(
        'the loop audit saw `zero_grad()` between `backward()` and `step()` of the same optimizer.'
    ),
)
