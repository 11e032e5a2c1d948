"""GD304 vanishing-gradients (warning, detected at runtime).

## What it does
Finds layers whose gradients are orders of magnitude below those of the rest of the model.

## Why is this bad?
Those layers, usually the early ones, barely move: the network trains like a much shallower one.

## Example
```python
layers = [nn.Linear(64, 64), nn.Sigmoid()] * 20
```

## Use instead
```python
layers = [nn.Linear(64, 64), nn.LayerNorm(64), nn.GELU()] * 20
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
