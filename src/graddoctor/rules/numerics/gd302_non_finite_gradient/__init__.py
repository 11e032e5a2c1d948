"""GD302 non-finite-gradient (error, detected at runtime).

## What it does
Finds NaN/Inf gradients and names the first parameter and layer where they appear.

## Why is this bad?
The next optimizer step writes NaN into the weights.

## Example
```python
>>> import torch
>>> h = torch.zeros(2, 3, requires_grad=True)
>>> norm = torch.sqrt((h ** 2).sum(-1))   # the gradient of sqrt at 0 is inf
>>> norm.sum().backward()
>>> h.grad.isnan().all().item()
True

```

## Use instead
```python
>>> h.grad = None
>>> norm = torch.sqrt((h ** 2).sum(-1) + 1e-12)
>>> norm.sum().backward()
>>> h.grad.isfinite().all().item()
True

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD302',
    name='non-finite-gradient',
    severity=Severity.ERROR,
    detected='R',
    hint='Find the first op whose backward produced NaN/Inf (sqrt or pow at 0, a division by a small number, an overflow); add an epsilon, clip, or lower the learning rate.',
    engines=('graddoctor.explain.patterns',),
    doc=__doc__,
    evidence_needed=(
        'a gradient norm measured before a step was NaN or infinite (the first step, layer and parameters are '
        'recorded).'
    ),
)
