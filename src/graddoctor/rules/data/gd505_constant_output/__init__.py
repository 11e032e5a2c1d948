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

## When it warns
Every row of a loss's input is exactly the same on 8 consecutive checks spanning at least 15 calls of the loss, and one probed forward pass shows a layer that ignores its input: the first module whose output is the same for every sample had an input that varied by more than rounding (a dead ReLU, a normalisation over one value). The model's own input must vary. The finding names the line that called the model and that layer.

## Correct code it stays silent on
Identical rows that come from a discrete choice, not from a layer: a VQ-VAE batch whose vectors all picked one code (its codebook loss sees the same embedding row for every sample, and the straight-through output `x + (q - x).detach()` equals `q` up to rounding while its gradient still reaches the encoder); a batch whose inputs are themselves identical; a generator whose outputs are similar but not equal early in training.
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
    evidence_needed=(
        'every row of the loss input identical on 8+ consecutive checks spanning 15+ loss calls, and a probe '
        'forward pass found the layer whose output is constant although its input varied.'
    ),
)
