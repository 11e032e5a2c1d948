"""GD208 training-in-eval-mode (warning, detected at runtime).

## What it does
Finds optimizer steps taken while modules with dropout or batch normalisation are in eval mode.

## Why is this bad?
In eval mode dropout is off and batch norm uses its running statistics and stops updating them: the model trains without regularisation and against frozen normalisation, and behaves differently from what was intended.

## Example
```python
model.eval()
evaluate(model)
for x, y in loader:   # still in eval mode
    train_step(x, y)
```

## Use instead
```python
model.eval()
evaluate(model)
model.train()
for x, y in loader:
    train_step(x, y)
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD208',
    name='training-in-eval-mode',
    severity=Severity.WARNING,
    detected='R',
    hint='Call `model.train()` before the training loop (and again after each evaluation that called `model.eval()`).',
    doc=__doc__,
)
