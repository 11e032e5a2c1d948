"""GD111 gradient-always-zero (warning, detected at runtime).

## What it does
Finds a parameter whose gradient exists but is exactly zero on every observed step: a masked path, a saturated activation, a step function.

## Why is this bad?
The parameter is connected to the loss, so nothing errors, but a zero gradient never moves it: it behaves like a frozen weight that was meant to train.

## Example
```python
>>> import torch
>>> from torch import nn
>>> layer, x = nn.Linear(4, 4), torch.randn(8, 4)
>>> h = torch.round(layer(x))        # a step function: derivative 0 almost everywhere
>>> h.sum().backward()
>>> layer.weight.grad.abs().max()
tensor(0.)

```

## Use instead
```python
>>> layer.zero_grad()
>>> h = layer(x)
>>> h = h + (torch.round(h) - h).detach()   # round forward, identity backward
>>> h.sum().backward()
>>> bool(layer.weight.grad.abs().max() > 0)
True

```

## Where it points
At the op that zeroes the gradient when deep mode saw it: a step function, a clamp at its
bound, a dead ReLU, or the indexing that keeps one time step of a bidirectional RNN's output
(`out[:, -1, :]`: there the reverse direction has read one token from a zero state, so its
last layer's hidden-to-hidden weights get exactly zero gradient; read both directions'
final states, `torch.cat([h_n[-2], h_n[-1]], dim=1)`, instead). Else at the line that
defines the parameter's module.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD111',
    name='gradient-always-zero',
    severity=Severity.WARNING,
    detected='R',
    hint='Check the masking, the activation (a saturated sigmoid/tanh, a dead ReLU, a step function) or the weight initialisation on the path to this parameter.',
    doc=__doc__,
    evidence_needed=(
        "a parameter's gradient was present and exactly zero on every one of at least 5 measured optimizer "
        'steps, and the parameter never moved (`zero_steps` in evidence).'
    ),
)
