"""GD306 loss-not-decreasing (warning, detected at runtime).

## What it does
Finds a loss that stays flat or rises over the observed window while optimizer steps happen.

## Why is this bad?
Steps are taken, so something is being computed, but the model is not learning: a learning rate off by orders of magnitude, gradients that do not reach the weights, labels shuffled apart from their inputs.

## Example
```python
optimizer = torch.optim.SGD(model.parameters(), lr=1e-9)
```

## Use instead
```python
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD306',
    name='loss-not-decreasing',
    severity=Severity.WARNING,
    detected='R',
    hint='Look at the other findings for the cause; if there are none, check the learning rate, the data and labels, and try overfitting a single batch.',
    doc=__doc__,
)
