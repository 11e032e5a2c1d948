"""GD204 step-without-effect (warning, detected at runtime).

## What it does
Finds optimizer steps that leave every parameter unchanged: learning rate 0, gradients all None or zero, parameters frozen.

## Why is this bad?
Training goes through the motions, loss values are logged, and nothing changes.

## Example
```python
optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
```

## Use instead
```python
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
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
)
