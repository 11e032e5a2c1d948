"""GD203 missing-optimizer-step (error, detected at runtime and statically).

## What it does
Finds a loop where `backward()` runs but no optimizer ever steps.

## Why is this bad?
Gradients are computed and then never applied: the parameters keep their initial values and the loss does not move.

## Example
```python
for x, y in loader:
    optimizer.zero_grad()
    criterion(model(x), y).backward()
```

## Use instead
```python
for x, y in loader:
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    optimizer.step()
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
    doc=__doc__,
)
