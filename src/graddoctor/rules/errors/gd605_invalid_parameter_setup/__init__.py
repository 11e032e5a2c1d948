"""GD605 invalid-parameter-setup (error, detected at runtime).

## What it does
Explains a crash in setting up the trainable parameters: an optimizer given no parameters (a `model.parameters()` generator already used up by an earlier optimizer, or a filter on `requires_grad` when everything is frozen), a plain tensor assigned where a module registers a Parameter (`layer.weight = torch.randn(...)`).

## Why is this bad?
The script stops before training starts, and the message does not say why the list was empty or how to assign a weight.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model = nn.Linear(3, 2)
>>> params = model.parameters()                  # a generator: it can be used once
>>> encoder_opt = torch.optim.SGD(params, lr=0.1)
>>> head_opt = torch.optim.SGD(params, lr=0.1)
Traceback (most recent call last):
    ...
ValueError: optimizer got an empty parameter list

```

## Use instead
```python
>>> params = list(model.parameters())            # a list can be read again
>>> encoder_opt = torch.optim.SGD(params, lr=0.1)
>>> len(encoder_opt.param_groups[0]["params"])
2

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD605',
    name='invalid-parameter-setup',
    severity=Severity.ERROR,
    detected='R',
    hint="Give each optimizer a list of the parameters it trains (`list(model.parameters())`, built once); assign weights as `nn.Parameter(tensor)` or copy values into the existing one under `torch.no_grad()` (`layer.weight.copy_(tensor)`).",
    engines=('graddoctor.explain.training_patterns',),
    doc=__doc__,
    evidence_needed=(
        'the run crashed setting up its parameters or optimizer, matched by `explain`; the exception and its '
        'line are the evidence.'
    ),
)
