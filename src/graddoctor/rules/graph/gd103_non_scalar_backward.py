"""GD103 non-scalar-backward (error, detected at runtime and statically).

## What it does
Finds `backward()` on a tensor with more than one element and no `gradient=` argument, typically a per-sample loss from `reduction='none'`.

## Why is this bad?
PyTorch raises `RuntimeError: grad can be implicitly created only for scalar outputs`. Passing `gradient=torch.ones_like(loss)` silences it but sums instead of averaging, so the effective learning rate grows with the batch size.

## Example
```python
criterion = nn.CrossEntropyLoss(reduction='none')
loss = criterion(model(x), y)   # shape (batch,)
loss.backward()
```

## Use instead
```python
criterion = nn.CrossEntropyLoss(reduction='none')
loss = criterion(model(x), y).mean()
loss.backward()
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
    doc=__doc__,
)
