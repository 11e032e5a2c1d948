"""GD307 amp-steps-skipped (warning, detected at runtime).

## What it does
Finds `GradScaler` skipping most optimizer steps because the scaled gradients are not finite.

## Why is this bad?
A skipped step applies nothing; when most are skipped the model trains on a small fraction of its batches, or not at all, while the loop looks normal.

## Example
```python
with torch.autocast('cuda', dtype=torch.float16):
    loss = model(x).exp().sum()   # overflows float16
```

## Use instead
```python
with torch.autocast('cuda', dtype=torch.bfloat16):
    loss = model(x).float().logsumexp(-1).mean()
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD307',
    name='amp-steps-skipped',
    severity=Severity.WARNING,
    detected='R',
    hint='Find where the float16 values overflow (keep softmax/normalisation in float32, avoid large constants), or train in bfloat16.',
    engines=('graddoctor.observers.loop_audit',),
    doc=__doc__,
    evidence_needed=(
        'GradScaler skipped more than half of at least 8 steps (its scale fell on each skipped step).'
    ),
)
