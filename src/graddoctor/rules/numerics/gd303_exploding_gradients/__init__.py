"""GD303 exploding-gradients (warning, detected at runtime).

## What it does
Finds a total gradient norm that grew by orders of magnitude relative to the run's own first steps.

Evidence for a warning: the total gradient norm (clipped norms included) on a step after the 5th is
at least 1000 times the median of the first 5 steps' norms (`explode_growth`). An absolute norm alone
is never enough: its scale depends on the loss, so a large norm from the start is the loss's scale,
not an explosion. A threshold set for a run (`watch(explode_norm=...)`) gives information only.
Non-finite gradients are reported by GD302.

Stays silent on: losses with `reduction='sum'` (a VAE summed over pixels and batch has healthy norms
near 1e4 from its first step, and the loss falls), large models whose norm is large but steady,
norms that fall or wander within a factor of 1000.

## Why is this bad?
Updates far larger than the weights throw the model into regions it does not come back from; soon the loss becomes NaN.

## Example
```python
optimizer = torch.optim.SGD(rnn.parameters(), lr=1.0)   # long sequences, no clipping
```

## Use instead
```python
loss.backward()
torch.nn.utils.clip_grad_norm_(rnn.parameters(), 1.0)
optimizer.step()
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD303',
    name='exploding-gradients',
    severity=Severity.WARNING,
    detected='R',
    hint='Clip the gradient norm (`torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)` between backward and step), lower the learning rate, or add normalisation.',
    doc=__doc__,
    evidence_needed=(
        "the total gradient norm grew to at least 1e3 times the median of the run's first 5 measured steps "
        '(or crossed a user-set `explode_norm`, which alone is info).'
    ),
)
