"""GD207 graph-kept-alive (warning, detected at runtime and statically).

## What it does
Finds tensors with autograd history kept across iterations (`total += loss`, appending outputs to a list, an eval loop without `no_grad`), so memory grows step after step. At run time every result of a `torch.nn.functional` loss (and so of the nn loss modules) is followed: a line whose results pile up alive (10 or more at once, the oldest made 10 calls earlier) is reported at once, even in an evaluation that runs between optimizer steps; other tensors are checked in sampled iterations.

## Why is this bad?
Each kept tensor holds its whole computation graph, with every saved activation, alive: memory grows with every iteration until the process runs out of memory, and the step time grows with it.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model = nn.Linear(4, 1)
>>> batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
>>> total_loss = 0
>>> for x, y in batches:
...     loss = nn.functional.mse_loss(model(x), y)
...     loss.backward()
...     total_loss += loss
>>> total_loss.grad_fn is not None     # every batch's graph is still alive
True

```

## Use instead
```python
>>> total_loss = 0.0
>>> for x, y in batches:
...     loss = nn.functional.mse_loss(model(x), y)
...     loss.backward()
...     total_loss += loss.item()
>>> type(total_loss)
<class 'float'>

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
