"""GD101 loss-is-python-number (error, detected at runtime and statically).

## What it does
Finds `backward()` called on, or a loss built from, the result of `.item()`, `float()`, `.tolist()` or `.numpy()`.

## Why is this bad?
A Python number has no autograd history. `loss.item().backward()` fails at once with `AttributeError: 'float' object has no attribute 'backward'`; a loss rebuilt from numbers (`torch.tensor(a.item() + b.item(), requires_grad=True)`) runs but sends no gradient to any parameter, so the model never learns.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x, y = nn.Linear(4, 1), torch.randn(8, 4), torch.randn(8, 1)
>>> loss = nn.functional.mse_loss(model(x), y)
>>> loss.item().backward()
Traceback (most recent call last):
    ...
AttributeError: 'float' object has no attribute 'backward'

```

## Use instead
```python
>>> loss = nn.functional.mse_loss(model(x), y)
>>> running_loss = loss.item()      # numbers are for logging only
>>> loss.backward()
>>> model.weight.grad is not None
True

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD101',
    name='loss-is-python-number',
    severity=Severity.ERROR,
    detected='RS',
    hint='Call `backward()` on the tensor itself and use `.item()` only for logging: `loss.backward(); running += loss.item()`.',
    engines=('graddoctor.explain.patterns', 'graddoctor.observers.graph_checks', 'graddoctor.observers.provenance_explaining'),
    doc=__doc__,
    evidence_needed=(
        "the run's `backward()` reached no parameter, and deep mode followed the loss's values back to a "
        '`.item()`/`float()`/`.tolist()`/`.numpy()` on a tensor that required grad (the number cut and the '
        'tensor rebuilt from it).'
    ),
)
