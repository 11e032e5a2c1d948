"""GD305 update-ratio-out-of-range (warning, detected at runtime).

## What it does
Finds an update-to-weight ratio (norm of the step's change over the norm of the weight) far from about 1e-3: a learning rate too small or too large.

The optimizer's kind is taken into account: an adaptive optimizer (Adam, AdamW, RMSprop, Adagrad...) moves every weight by about its learning rate on each step, whatever the gradient, so with `lr` near the weights' own size (Adam left at `lr=1.0` after switching from Adadelta) the weights grow until later steps look normal. For those, the first full-lr step is judged: above 0.5 of the weights' size is out of range (Adam at `lr=1.0` measured about 10). Adadelta is not adaptive in this sense: its `lr=1.0` default is right. Otherwise the median over the measured steps at full learning rate is judged against [1e-6, 0.5].

Evidence for a warning, from the run itself: a ratio too large is a warning only when the loss it drives went non-finite, shot up to 10 times its starting value or more, or did not fall over the run (it fell when the median of its last quarter of steps is 1% below that of the first quarter, or below it by more than three times the loss's own step-to-step noise); a ratio too small (the weights barely move) is a warning unless the loss falls all the same. Without that evidence the finding is information. Layers whose weights were exactly zero when first measured are left out of the ratio: relative to a weight that grew from 0 it only counts the steps taken. The fix always points away from the observed rate: lower than it when too large, higher when too small.

Stays silent (or at most info) on: a published example's own large rate when its loss falls (forward-forward's Adam at `lr=0.03`, whose layers see only the direction of their input, reaches 0 training error); a model whose only parameter starts at zero (a bigram logits table `nn.Parameter(torch.zeros(V, V))`, a zero-initialised `nn.Embedding`); warm-up schedules (only steps at full rate are judged).

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
    evidence_needed=(
        "the median update/weight ratio at full learning rate (or an adaptive optimizer's first full-lr step) "
        "outside [1e-6, 0.5], and the run's own harm: a non-finite loss, a loss that shot up, or one that did "
        'not fall. Without harm: info.'
    ),
)
