"""GD109 leaf-modified-in-place (error, detected at runtime and statically).

## What it does
Finds in-place operations on a leaf tensor that requires grad outside `no_grad`, and writes through `.data` that silently desynchronise autograd.

## Why is this bad?
An in-place op on a leaf that requires grad raises `RuntimeError: a leaf Variable that requires grad is being used in an in-place operation`. A write through `.data` raises nothing: if it happens between the forward pass and `backward()`, the gradient is computed from values that no longer exist and is silently wrong.

## Example
```python
>>> import torch
>>> w = torch.randn(3, requires_grad=True)
>>> w.add_(1)
Traceback (most recent call last):
    ...
RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.

```

## Use instead
```python
>>> with torch.no_grad():
...     _ = w.add_(1)

```

## Known problems
`lint` treats `nn.Parameter(t, requires_grad=False)` and parameters switched off anywhere in the file (`p.requires_grad = False`, `p.requires_grad_(False)`) as buffers, not leaves that require grad: running statistics and EMA codebooks kept as frozen Parameters are updated in place on purpose and are not reported.

At run time a `.data` assignment that leaves the parameter as it was is no write: `nn.Module.to()` assigns `param.data = param` to every parameter when there is nothing to move or convert (an adapter library moving its new weights to the base layer's device does so), and an op that returns its input unchanged (`p.to(p.device)`) is no use by a forward pass.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD109',
    name='leaf-modified-in-place',
    severity=Severity.ERROR,
    detected='RS',
    hint='Edit parameters under `torch.no_grad()` (`with torch.no_grad(): w.fill_(0)`), or compute a new tensor out of place. Never write through `.data` during training.',
    engines=('graddoctor.explain.patterns', 'graddoctor.observers.provenance'),
    doc=__doc__,
    evidence_needed=(
        'an in-place op (or a `.data` write) on a leaf that requires grad was recorded outside `no_grad`; a '
        '`.data` write only when it gave the parameter other memory or another view, after an op recorded it '
        'into a graph and before the backward that reached it.'
    ),
)
