"""GD206 clip-outside-backward-step (warning, detected at runtime and statically).

## What it does
Finds gradient clipping that is not between `backward()` and `step()`: after the step, or before the backward pass.

## Why is this bad?
Clipping after `step()` changes gradients that were already applied (and then cleared); clipping before `backward()` clips the previous step's gradients or nothing. Either way the update is never clipped.

## Example
```python
loss.backward()
optimizer.step()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
```

## Use instead
```python
loss.backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
optimizer.step()
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD206',
    name='clip-outside-backward-step',
    severity=Severity.WARNING,
    detected='RS',
    hint='Clip between `loss.backward()` and `optimizer.step()`.',
    doc=__doc__,
)
