"""GD202 zero-grad-before-step (error, detected at runtime and statically).

## What it does
Finds `zero_grad()` called between `backward()` and `step()`.

## Why is this bad?
The gradients just computed are cleared before the optimizer reads them, so `step()` applies nothing (or only weight decay): the model does not learn.

## Example
```python
loss.backward()
optimizer.zero_grad()
optimizer.step()
```

## Use instead
```python
optimizer.zero_grad()
loss.backward()
optimizer.step()
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
    doc=__doc__,
)
