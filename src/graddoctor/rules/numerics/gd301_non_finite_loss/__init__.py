"""GD301 non-finite-loss (error, detected at runtime).

## What it does
Finds the first step whose loss is NaN or infinite.

## Why is this bad?
A non-finite loss gives non-finite gradients; one optimizer step with them writes NaN into the weights, and the model is lost for good.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x, y = nn.Linear(4, 1), torch.randn(8, 4), torch.ones(8, 1)
>>> _ = nn.init.constant_(model.bias, -200.0)   # sigmoid rounds to exactly 0 in float32
>>> probs = torch.sigmoid(model(x))
>>> loss = -(y * probs.log()).mean()   # log(0) = -inf
>>> loss.isinf().item()
True

```

## Use instead
```python
>>> loss = nn.functional.binary_cross_entropy_with_logits(model(x), y)
>>> loss.isfinite().item()
True

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD301',
    name='non-finite-loss',
    severity=Severity.ERROR,
    detected='R',
    hint='Find the first op that produced NaN/Inf (a log or division of zero, an overflow in float16, a too-large learning rate); clamp inputs (`log(x.clamp_min(1e-8))`), use the fused stable losses (`cross_entropy` on logits, `BCEWithLogitsLoss`), or lower the learning rate.',
    engines=('graddoctor.observers.graph_checks',),
    doc=__doc__,
    evidence_needed=(
        'a loss value read back by the run was NaN or infinite (the step and value are recorded).'
    ),
)
