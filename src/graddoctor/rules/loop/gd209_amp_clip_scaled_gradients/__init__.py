"""GD209 amp-clip-scaled-gradients (warning, detected at runtime and statically).

## What it does
Finds gradient clipping under `GradScaler` without `scaler.unscale_(optimizer)` first.

## Why is this bad?
The gradients are still multiplied by the loss scale (65536 by default), so a clip threshold of 1.0 clips almost everything to a tiny fraction of its size, and the clip threshold changes meaning whenever the scale changes.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x, y = nn.Linear(4, 1), torch.randn(8, 4), torch.randn(8, 1)
>>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
>>> scaler = torch.amp.GradScaler("cpu")
>>> scaler.scale(nn.functional.mse_loss(model(x), y)).backward()
>>> scaled_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
>>> bool(scaled_norm > 1000)     # the norm of gradients times 65536
True

```

## Use instead
```python
>>> optimizer.zero_grad()
>>> scaler.scale(nn.functional.mse_loss(model(x), y)).backward()
>>> scaler.unscale_(optimizer)
>>> true_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
>>> scaler.step(optimizer)
>>> scaler.update()

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD209',
    name='amp-clip-scaled-gradients',
    severity=Severity.WARNING,
    detected='RS',
    hint='Call `scaler.unscale_(optimizer)` before clipping: `scaler.scale(loss).backward(); scaler.unscale_(optimizer); clip_grad_norm_(...); scaler.step(optimizer)`.',
    engines=('graddoctor.explain.patterns', 'graddoctor.observers.loop_audit'),
    doc=__doc__,
    evidence_needed=(
        'clipping ran between `scaler.scale(loss).backward()` and `scaler.step()` without `scaler.unscale_()` '
        'first.'
    ),
)
