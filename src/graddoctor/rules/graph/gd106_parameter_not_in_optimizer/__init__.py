"""GD106 parameter-not-in-optimizer (error, detected at runtime).

## What it does
Finds model parameters that receive gradients but belong to no optimizer: a layer replaced after the optimizer was built, an optimizer given a subset of the parameters, a whole model replaced during training (`model = copy.deepcopy(best_model)` on rollback, `model = Net()` re-created) while the optimizer still holds the old one. A replaced model is found when a walked backward reaches parameters that no known model or optimizer holds, and reported at the line that rebound the model's name when the script shows it.

## Why is this bad?
Gradients are computed for them on every step, at full cost, and then never applied: those weights never change, which looks exactly like a layer that does not learn.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 2))
>>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
>>> model[1] = nn.Linear(8, 10)    # new head, unknown to the optimizer
>>> known = {id(p) for group in optimizer.param_groups for p in group["params"]}
>>> [name for name, p in model.named_parameters() if id(p) not in known]
['1.weight', '1.bias']

```

## Use instead
```python
>>> model[1] = nn.Linear(8, 10)
>>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
>>> known = {id(p) for group in optimizer.param_groups for p in group["params"]}
>>> [name for name, p in model.named_parameters() if id(p) not in known]
[]

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD106',
    name='parameter-not-in-optimizer',
    severity=Severity.ERROR,
    detected='R',
    hint="Build the optimizer after the model is final (after replacing layers or `.to(device)`), from `model.parameters()`, or add the missing ones with `optimizer.add_param_group({'params': [...]})`.",
    engines=('graddoctor.observers.replaced_models',),
    doc=__doc__,
    evidence_needed=(
        'parameters of a known model received gradients on the observed steps while no optimizer holds them.'
    ),
)
