"""GD503 broadcast-in-loss (warning, detected at runtime and statically).

## What it does
Finds a prediction and a target of different shapes that broadcast inside the loss, in built-in losses (`mse_loss`, `l1_loss`, `smooth_l1_loss`, `huber_loss`...) and in hand-written ones such as `((pred - y) ** 2).mean()`: an `(N, 1)` prediction against an `(N,)` target gives an `(N, N)` loss.

## Why is this bad?
Every prediction is compared with every target, not with its own: the loss is minimised by predicting the batch mean for everyone, so the model learns nothing about its inputs, and nothing fails.

## Example
```python
>>> import torch
>>> pred, y = torch.zeros(4, 1), torch.arange(4.0)
>>> ((pred - y) ** 2).shape
torch.Size([4, 4])

```

## Use instead
```python
>>> ((pred.squeeze(1) - y) ** 2).shape
torch.Size([4])

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD503',
    name='broadcast-in-loss',
    severity=Severity.WARNING,
    detected='RS',
    hint='Give prediction and target the same shape: `pred.squeeze(-1)` for an `(N, 1)` output against an `(N,)` target (or `y.unsqueeze(-1)`).',
    doc=__doc__,
    evidence_needed=(
        'a prediction and a target of different shapes broadcast inside a built-in loss (both shapes '
        'recorded), or the loss graph shows the broadcast.'
    ),
)
