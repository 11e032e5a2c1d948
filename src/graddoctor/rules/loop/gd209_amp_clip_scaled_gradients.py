"""GD209 amp-clip-scaled-gradients (warning, detected at runtime and statically).

## What it does
Finds gradient clipping under `GradScaler` without `scaler.unscale_(optimizer)` first.

## Why is this bad?
The gradients are still multiplied by the loss scale (65536 by default), so a clip threshold of 1.0 clips almost everything to a tiny fraction of its size, and the clip threshold changes meaning whenever the scale changes.

## Example
```python
scaler.scale(loss).backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
scaler.step(optimizer)
```

## Use instead
```python
scaler.scale(loss).backward()
scaler.unscale_(optimizer)
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
scaler.step(optimizer)
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
    doc=__doc__,
)
