"""GD201 missing-zero-grad (error, detected at runtime and statically).

## What it does
Finds gradients accumulating across optimizer steps because they are never cleared between steps.

## Why is this bad?
`backward()` adds to `.grad`. Without clearing, each step applies the sum of every gradient so far: the update grows step after step and training diverges or oscillates.

## Example
```python
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```

## Use instead
```python
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD201',
    name='missing-zero-grad',
    severity=Severity.ERROR,
    detected='RS',
    hint='Call `optimizer.zero_grad()` once per optimizer step (at the start of the iteration, or right after `step()`).',
    doc=__doc__,
)
