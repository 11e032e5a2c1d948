"""GD203 missing-optimizer-step (error, detected at runtime and statically).

## What it does
Finds a loop where `backward()` runs but no optimizer ever steps.

## Why is this bad?
Gradients are computed and then never applied: the parameters keep their initial values and the loss does not move.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x, y = nn.Linear(4, 1), torch.randn(8, 4), torch.randn(8, 1)
>>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
>>> before = model.weight.detach().clone()
>>> for _ in range(3):
...     optimizer.zero_grad()
...     nn.functional.mse_loss(model(x), y).backward()
>>> torch.equal(model.weight, before)
True

```

## Use instead
```python
>>> for _ in range(3):
...     optimizer.zero_grad()
...     nn.functional.mse_loss(model(x), y).backward()
...     optimizer.step()
>>> torch.equal(model.weight, before)
False

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD203',
    name='missing-optimizer-step',
    severity=Severity.ERROR,
    detected='RS',
    hint='Call `optimizer.step()` after `loss.backward()` in every iteration (every k-th with gradient accumulation).',
    engines=('graddoctor.observers.loop_audit',),
    doc=__doc__,
    evidence_needed=(
        'two or more completed `backward()` calls and no optimizer step in the whole run.'
    ),
)
