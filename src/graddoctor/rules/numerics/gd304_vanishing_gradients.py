"""GD304 vanishing-gradients (warning, detected at runtime).

## What it does
Finds layers whose gradients are orders of magnitude below those of the rest of the model.

Judged per element (gradient RMS) against the upper quartile of the layers, on every measured step: a layer below 3e-3 of it on at least half of 3 or more steps is reported (`vanish_ratio`). Healthy networks measured (deep ReLU MLPs, residual LayerNorm nets, transformers) keep every layer above 1e-2; a 6-layer sigmoid MLP's first layer sits near 1e-3. Embedding tables are not judged: only the rows of the batch's tokens get a gradient, which dilutes their per-element RMS by the vocabulary size.

## Why is this bad?
Those layers, usually the early ones, barely move: the network trains like a much shallower one. In the example below, the first of 20 sigmoid layers gets a gradient more than ten orders of magnitude smaller than the last.

## Example
```python
>>> import torch
>>> from torch import nn
>>> net = nn.Sequential(*[m for _ in range(20) for m in (nn.Linear(64, 64), nn.Sigmoid())])
>>> net(torch.randn(16, 64)).sum().backward()
>>> bool(net[0].weight.grad.norm() < 1e-10 * net[-2].weight.grad.norm())   # first vs last layer
True

```

## Use instead
```python
>>> net = nn.Sequential(*[m for _ in range(20) for m in (nn.Linear(64, 64), nn.LayerNorm(64), nn.GELU())])
>>> net(torch.randn(16, 64)).sum().backward()
>>> bool(net[0].weight.grad.norm() > 1e-2 * net[-3].weight.grad.norm())
True

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD304',
    name='vanishing-gradients',
    severity=Severity.WARNING,
    detected='R',
    hint='Use residual connections, normalisation (LayerNorm/BatchNorm), ReLU-family activations instead of sigmoid/tanh stacks, and a suitable initialisation.',
    doc=__doc__,
)
