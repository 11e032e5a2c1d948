"""GD603 device-mismatch (error, detected at runtime).

## What it does
Explains a crash caused by tensors on different devices meeting in one op: the model moved to the GPU and the batch left on the CPU (or the reverse), a tensor created inside `forward` without `device=`, a model built on the `meta` device and never materialised. Under `graddoctor run` it names which tensor is on which device.

## Why is this bad?
The script stops at the first op that mixes them. An optimizer built before `model.to(device)` is not a cause: `.to()` moves parameters in place, so the optimizer keeps the same tensors.

## Example
```python
>>> import torch
>>> from torch import nn
>>> with torch.device("meta"):                   # deferred init, never materialised
...     model = nn.Linear(3, 2)
>>> model(torch.randn(4, 3))
Traceback (most recent call last):
    ...
RuntimeError: Tensor on device meta is not on the expected device cpu!

```

## Use instead
```python
>>> model = model.to_empty(device="cpu")
>>> model.reset_parameters()
>>> model(torch.randn(4, 3)).device
device(type='cpu')

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD603',
    name='device-mismatch',
    severity=Severity.ERROR,
    detected='R',
    hint="Move every batch to the model's device in the loop (`x, y = x.to(device), y.to(device)`), create tensors inside `forward` on their input's device (`torch.zeros(..., device=x.device)`), and move the model once before training (`model.to(device)`).",
    engines=('graddoctor.explain.training_patterns',),
    doc=__doc__,
    evidence_needed=(
        'the run crashed with a device error that `explain` matched; the exception and its line are the '
        'evidence.'
    ),
)
