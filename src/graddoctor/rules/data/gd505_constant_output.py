"""GD505 constant-output (warning, detected at runtime).

## What it does
Finds a model whose output does not depend on its input: every row of the prediction identical at the loss, step after step. Typical causes are a final ReLU that died (every prediction 0), or a normalisation over a dimension of size 1.

## Why is this bad?
A model that gives every sample the same answer can at best learn the average target. When a ReLU is dead its gradient is zero as well, so the layers below it never get a signal to recover.

## Example
```python
>>> import torch
>>> from torch import nn
>>> head = nn.Sequential(nn.Linear(4, 1), nn.ReLU())   # a final ReLU on a regression output
>>> with torch.no_grad():
...     _ = head[0].bias.fill_(-10.0)                   # pushed below zero during training
>>> head(torch.randn(3, 4)).flatten().tolist()
[0.0, 0.0, 0.0]

```

## Use instead
```python
>>> head = nn.Sequential(nn.Linear(4, 1))               # no activation on the output
>>> len(set(head(torch.randn(3, 4)).flatten().tolist()))
3

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD505',
    name='constant-output',
    severity=Severity.WARNING,
    detected='R',
    hint='Remove the activation from the output layer (or use LeakyReLU), check that normalisation runs over a dimension with more than one value, and lower the learning rate if the outputs collapsed after a large step.',
    doc=__doc__,
)
