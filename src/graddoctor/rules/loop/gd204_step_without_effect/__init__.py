"""GD204 step-without-effect (warning, detected at runtime).

## What it does
Finds optimizer steps that leave every parameter unchanged: learning rate 0, gradients all None or zero, parameters frozen.

## Why is this bad?
Training goes through the motions, loss values are logged, and nothing changes.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x, y = nn.Linear(4, 1), torch.randn(8, 4), torch.randn(8, 1)
>>> optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
>>> before = model.weight.detach().clone()
>>> nn.functional.mse_loss(model(x), y).backward()
>>> optimizer.step()
>>> torch.equal(model.weight, before)
True

```

## Use instead
```python
>>> optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
>>> optimizer.step()
>>> torch.equal(model.weight, before)
False

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD204',
    name='step-without-effect',
    severity=Severity.WARNING,
    detected='R',
    hint="Check the learning rate (`optimizer.param_groups[i]['lr']`), that the parameters require grad, and that gradients reach them before `step()`.",
    doc=__doc__,
    evidence_needed=(
        'every measured step of an optimizer left its parameters unchanged: lr 0, every gradient None or '
        'exactly zero (counts in evidence).'
    ),
)
