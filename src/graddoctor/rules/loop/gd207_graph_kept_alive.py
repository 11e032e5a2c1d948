"""GD207 graph-kept-alive (warning, detected at runtime and statically).

## What it does
Finds tensors with autograd history kept across iterations (`total += loss`, appending outputs to a list, an eval loop without `no_grad`), so memory grows step after step.

## Why is this bad?
Each kept tensor holds its whole computation graph, with every saved activation, alive: memory grows with every iteration until the process runs out of memory, and the step time grows with it.

## Example
```python
total_loss = 0
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    total_loss += loss
```

## Use instead
```python
total_loss = 0.0
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    total_loss += loss.item()
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD207',
    name='graph-kept-alive',
    severity=Severity.WARNING,
    detected='RS',
    hint='Accumulate numbers, not tensors: `total += loss.item()` (or `loss.detach()`); run evaluation under `torch.no_grad()`.',
    doc=__doc__,
)
