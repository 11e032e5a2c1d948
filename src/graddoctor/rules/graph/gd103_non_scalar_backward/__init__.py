"""GD103 non-scalar-backward (error, detected at runtime and statically).

## What it does
Finds `backward()` on a tensor with more than one element and no `gradient=` argument, typically a per-sample loss from `reduction='none'`, or a term reduced only over the dimensions after the batch's (`torch.sum(kl, dim=1)` of a model's outputs) that reaches backward without a final mean.

## Why is this bad?
PyTorch raises `RuntimeError: grad can be implicitly created only for scalar outputs`. Passing `gradient=torch.ones_like(loss)` silences it but sums instead of averaging, so the effective learning rate grows with the batch size.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x, y = nn.Linear(4, 3), torch.randn(8, 4), torch.randint(0, 3, (8,))
>>> criterion = nn.CrossEntropyLoss(reduction='none')
>>> loss = criterion(model(x), y)
>>> loss.shape
torch.Size([8])
>>> loss.backward()
Traceback (most recent call last):
    ...
RuntimeError: grad can be implicitly created only for scalar outputs

```

## Use instead
```python
>>> loss = criterion(model(x), y).mean()
>>> loss.backward()

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD103',
    name='non-scalar-backward',
    severity=Severity.ERROR,
    detected='RS',
    hint="Reduce the loss to one number before `backward()`: `loss.mean().backward()` (or `.sum()`), or use a criterion with the default `reduction='mean'`.",
    engines=('graddoctor.explain.patterns', 'graddoctor.observers.graph_checks'),
    doc=__doc__,
    evidence_needed=(
        '`backward()` was called, without `gradient=`, on a tensor of more than one element (its shape is '
        'recorded).'
    ),
)
