"""GD208 training-in-eval-mode (warning, detected at runtime).

## What it does
Finds optimizer steps taken while modules with dropout or batch normalisation are in eval mode.

## Why is this bad?
In eval mode dropout is off and batch norm uses its running statistics and stops updating them: the model trains without regularisation and against frozen normalisation, and behaves differently from what was intended.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5)), torch.randn(2, 4)
>>> _ = model.eval()               # for evaluation...
>>> torch.equal(model(x), model(x))   # ...and still in eval mode while training: no dropout
True

```

## Use instead
```python
>>> _ = model.train()              # back to training after evaluation
>>> torch.equal(model(x), model(x))
False

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
    engines=('graddoctor.observers.loop_audit',),
    doc=__doc__,
    evidence_needed=(
        'optimizer steps were taken while modules with dropout or batch normalisation were in eval mode.'
    ),
)
