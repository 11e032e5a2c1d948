"""GD306 loss-not-decreasing (warning, detected at runtime).

## What it does
Finds a loss that stays flat or rises while optimizer steps happen.

Each loss series is judged on its own: one `backward()` line and the optimizer stepped after it, so a second phase (a student
trained after its teacher, with a new optimizer) or a second loss (a discriminator and a
generator) is a series of its own. The first and last quarter of the series (at least 30 steps)
are compared by their medians, against the series' own step-to-step noise. Where most steps had
one batch size and some another (an epoch's short last batch, read off the loss's graph), only the
steps of the usual size are compared: a 6-sample batch of hard rows is not step-to-step noise.

It is a warning only when a cause was found (no gradient reaches the optimized parameters, a
learning rate of 0 or far off, a schedule that brought the rate to ~0 (below 1e-3 of its largest) for
the last quarter of the steps or more, named with the step it got there, vanishing gradients, a loop finding, or any other error or warning of
the same report, such as a scheduler stepped per batch, GD205, or probabilities fed to a logits
loss, GD501) or when a supervised loss clearly diverges. The other findings that explain the stall
are named, with their lines, before the data, the labels or the loss function are mentioned, and are
listed before it. A code is named only when the report holds it as an error or warning: a cause that is
only another finding (a loop finding) goes when that finding is not reported.

Stays silent (or at most info) on: losses that are not meant to fall steadily, which are at most
info and only with a cause: adversarial pairs (two optimizers over disjoint parameters where one loss runs through the
other's parameters, as in a GAN) and policy-gradient losses (log-probabilities weighted by a
return or an advantage). A flat loss with healthy gradients and no cause (a loss at its floor) is
info; when part of the optimized model never gets a gradient, GD104 reports that and GD306 stays silent.

## Why is this bad?
Steps are taken, so something is being computed, but the model is not learning: a learning rate off by orders of magnitude, gradients that do not reach the weights, labels shuffled apart from their inputs.

## Example
```python
optimizer = torch.optim.SGD(model.parameters(), lr=1e-9)
```

## Use instead
```python
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD306',
    name='loss-not-decreasing',
    severity=Severity.WARNING,
    detected='R',
    hint='Look at the other findings for the cause; if there are none, check the learning rate, the data and labels, and try overfitting a single batch.',
    doc=__doc__,
    evidence_needed=(
        'a loss series of 30+ steps whose last-quarter median is not 1% below its first-quarter median '
        'against its own noise, and a cause found from measurements (no gradient, lr 0 or a schedule decayed '
        'to ~0, a learning rate far off, vanishing updates) or reported findings, or a clear divergence. '
        'Codes are named only when the report holds them. Otherwise info.'
    ),
)
