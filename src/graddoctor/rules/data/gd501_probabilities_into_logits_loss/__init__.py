"""GD501 probabilities-into-logits-loss (warning, detected at runtime and statically).

## What it does
Finds a loss that applies its own softmax or sigmoid given values that already went through one: `CrossEntropyLoss` on rows that are non-negative and sum to 1, `BCEWithLogitsLoss` on values all in [0, 1], and `NLLLoss` given values that are not log-probabilities (positive entries).

## Why is this bad?
`cross_entropy` applies `log_softmax` itself. Given probabilities, it squashes values that already lie in [0, 1] a second time: every class gets nearly the same share, the loss barely moves from `log(C)` and the gradients shrink by orders of magnitude, so the model learns very slowly or not at all. `NLLLoss` expects log-probabilities; given probabilities or raw scores it rewards making them large without bound.

## Example
```python
>>> import torch
>>> from torch import nn
>>> logits, y = torch.tensor([[4.0, -4.0]]), torch.tensor([0])
>>> probs = torch.softmax(logits, dim=1)
>>> round(nn.functional.cross_entropy(probs, y).item(), 3)   # a confident, correct prediction
0.313

```

## Use instead
```python
>>> round(nn.functional.cross_entropy(logits, y).item(), 3)  # give the loss the logits
0.0

```
Keep `softmax` for prediction only (`probs = logits.softmax(1)` after the loss), or use `log_softmax` with `NLLLoss`, and `sigmoid` with `BCELoss`.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD501',
    name='probabilities-into-logits-loss',
    severity=Severity.WARNING,
    detected='RS',
    hint='Give the loss the raw logits: remove the softmax/sigmoid before it (the loss applies its own), or pair `log_softmax` with `NLLLoss` and `sigmoid` with `BCELoss`.',
    doc=__doc__,
    one_with_static=True,
    evidence_needed=(
        'rows that are non-negative and sum to 1 given to `cross_entropy`; positive values given to '
        "`nll_loss`; for `binary_cross_entropy_with_logits`, a sigmoid/softmax in the input's graph "
        '(`grad_fn`), or values in [0, 1] at every check of that loss in the run (10+ checks, 32+ elements, '
        'past step 100). Measured min/max/row sums in `evidence`.'
    ),
)
