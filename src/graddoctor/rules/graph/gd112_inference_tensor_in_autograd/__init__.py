"""GD112 inference-tensor-in-autograd (error, detected at runtime).

## What it does
Finds a tensor created under `torch.inference_mode()` (cached features, a precomputed embedding table) later used where autograd must save it.

## Why is this bad?
Inference tensors carry no version counter, so autograd cannot save them: PyTorch raises `RuntimeError: Inference tensors cannot be saved for backward`, pointing at the op that used it, not at where it was made.

## Example
```python
>>> import torch
>>> from torch import nn
>>> encoder, model = nn.Linear(4, 4), nn.Linear(4, 4)
>>> vocab, x = torch.randn(3, 4), torch.randn(3, 4)
>>> with torch.inference_mode():
...     table = encoder(vocab)
>>> loss = (model(x) * table).sum()
Traceback (most recent call last):
    ...
RuntimeError: Inference tensors cannot be saved for backward. ...

```

## Use instead
```python
>>> with torch.no_grad():
...     table = encoder(vocab)
>>> loss = (model(x) * table).sum()
>>> loss.backward()

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD112',
    name='inference-tensor-in-autograd',
    severity=Severity.ERROR,
    detected='R',
    hint='Create the cached tensor under `torch.no_grad()` instead of `torch.inference_mode()`, or `clone()` it outside inference mode before using it in training.',
    engines=('graddoctor.explain.patterns', 'graddoctor.observers.provenance_explaining'),
    doc=__doc__,
    evidence_needed=(
        "a tensor born under `inference_mode` was used where autograd must save it (PyTorch's error, or the "
        "tensor's birth line recorded)."
    ),
)
