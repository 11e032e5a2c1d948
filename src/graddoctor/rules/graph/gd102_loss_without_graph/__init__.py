"""GD102 loss-without-graph (error, detected at runtime and statically).

## What it does
Finds a loss with no `grad_fn` because every path from the parameters to it was cut by an operation: `detach()`, `.data`, a numpy round trip, `torch.tensor(t)` re-wrapping, or a non-differentiable op (argmax, round, comparison, integer cast).

In deep mode the finding names the cut's line; for a numpy or list round trip (`.detach().cpu().numpy()` then `torch.from_numpy(...)` / `torch.tensor(...)`, `torch.tensor(x.tolist())`) also the line that rebuilt a tensor without history, and for a model whose parameters were all frozen (`model.requires_grad_(False)`, `p.requires_grad = False` in a loop) the line that froze them and the model. When grad mode was off instead, GD110 is reported.

## Why is this bad?
`loss.backward()` raises `RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn`, or, where the user added `requires_grad=True` to silence that, runs and computes no gradient for any parameter.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model, x, y = nn.Linear(4, 3), torch.randn(8, 4), torch.randint(0, 3, (8,))
>>> pred = model(x).argmax(dim=1).float()   # argmax has no gradient
>>> loss = ((pred - y) ** 2).mean()
>>> loss.backward()
Traceback (most recent call last):
    ...
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

```

## Use instead
```python
>>> loss = nn.functional.cross_entropy(model(x), y)
>>> loss.backward()
>>> model.weight.grad is not None
True

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD102',
    name='loss-without-graph',
    severity=Severity.ERROR,
    detected='RS',
    hint='Remove the cut (`detach()`, `.data`, the numpy round trip, `torch.tensor(t)`) on the path from the parameters to the loss, or replace the non-differentiable op by a differentiable one (softmax instead of argmax, a soft threshold instead of a comparison).',
    engines=('graddoctor.explain.patterns', 'graddoctor.observers.graph_checks'),
    doc=__doc__,
    evidence_needed=(
        'the loss passed to `backward()` had no `grad_fn` (or reached no parameter) although parameters fed '
        'it, and the op that cut every path (detach, `.data`, a round trip, a freeze) was recorded.'
    ),
)
