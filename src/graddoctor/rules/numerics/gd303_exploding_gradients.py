"""GD303 exploding-gradients (warning, detected at runtime).

## What it does
Finds a gradient norm above a threshold, or growing by orders of magnitude over the observed steps.

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
)
