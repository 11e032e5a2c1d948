"""GD305 update-ratio-out-of-range (warning, detected at runtime).

## What it does
Finds an update-to-weight ratio (norm of the step's change over the norm of the weight) far from about 1e-3: a learning rate too small or too large.

The optimizer's kind is taken into account: an adaptive optimizer (Adam, AdamW, RMSprop, Adagrad...) moves every weight by about its learning rate on each step, whatever the gradient, so with `lr` near the weights' own size (Adam left at `lr=1.0` after switching from Adadelta) the weights grow until later steps look normal. For those, the first full-lr step is judged: above 0.5 of the weights' size is reported (correct programs measured at most 0.05 there; Adam at `lr=1.0` about 10). Adadelta is not adaptive in this sense: its `lr=1.0` default is right.

## Why is this bad?
Below ~1e-6 the weights barely move and training crawls; above ~1e-1 each step rewrites the weights and training is unstable.

## Example
```python
optimizer = torch.optim.SGD(model.parameters(), lr=1e-7)
```

## Use instead
```python
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD305',
    name='update-ratio-out-of-range',
    severity=Severity.WARNING,
    detected='R',
    hint='Tune the learning rate: the size of an update relative to the weight is healthy around 1e-3 per step.',
    doc=__doc__,
)
