"""GD305 update-ratio-out-of-range (warning, detected at runtime).

## What it does
Finds an update-to-weight ratio (norm of the step's change over the norm of the weight) far from about 1e-3: a learning rate too small or too large.

## Why is this bad?
Below ~1e-6 the weights barely move and training crawls; above ~1e-1 each step rewrites the weights and training is unstable.

## Example
```python
optimizer = torch.optim.SGD(model.parameters(), lr=1e-7)
```

## Use instead
```python
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD305',
    name='update-ratio-out-of-range',
    severity=Severity.WARNING,
    detected='R',
    hint='Tune the learning rate: the size of an update relative to the weight is healthy around 1e-3 per step.',
    doc=__doc__,
)
