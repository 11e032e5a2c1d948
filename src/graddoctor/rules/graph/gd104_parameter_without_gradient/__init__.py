"""GD104 parameter-without-gradient (error, detected at runtime).

## What it does
Finds trainable parameters (in an optimizer, or of a model the loss uses) that receive no gradient from the loss: an unused branch, a path cut by `detach()`/`no_grad()`, a frozen module upstream.

## Why is this bad?
Their `.grad` stays `None`, so the optimizer never changes them: that part of the model keeps its random initial weights while the rest trains, and the loss plateaus above where it should. Under DistributedDataParallel the same situation crashes the next iteration.

## Example
```python
>>> import torch
>>> from torch import nn
>>> class Net(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.encoder = nn.Linear(8, 8)
...         self.aux_head = nn.Linear(8, 2)   # never called in forward
...         self.head = nn.Linear(8, 2)
...     def forward(self, x):
...         return self.head(self.encoder(x))
>>> net = Net()
>>> net(torch.randn(4, 8)).sum().backward()
>>> net.aux_head.weight.grad is None
True

```

## Use instead
```python
>>> class Net(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.encoder = nn.Linear(8, 8)
...         self.aux_head = nn.Linear(8, 2)
...         self.head = nn.Linear(8, 2)
...     def forward(self, x):
...         h = self.encoder(x)
...         return self.head(h) + self.aux_head(h)
>>> net = Net()
>>> net(torch.randn(4, 8)).sum().backward()
>>> net.aux_head.weight.grad is None
False

```
Or, if `aux_head` is meant to stay unused, freeze it: `net.aux_head.requires_grad_(False)`.

## Where it points
At the cut that separated the parameters from the loss meant to train them (the loss whose
`backward()` is followed by a step of the optimizer holding them), else at the backward line.
A cut that another loss needs is never named: a GAN's `D(fake.detach())` in the
discriminator step, a target network's output. When the path ran with grad mode off
(`no_grad`, `inference_mode`), the finding is GD110, at the line that turned it off.
Ops that take only a shape from a parameter (`weight.new_zeros(...)`, `zeros_like`) cut
nothing and are never named.

## Evidence of harm
An error only when these parameters had `grad` None at every observed backward *and* at every checked
step of their optimizer (a gradient set by hand, `p.grad = g` as first-order MAML does with its adapted
copies, trains them too), and either a cut that fed trained layers separated them from the loss, or no
cut is known (an unused branch, however small: a forgotten auxiliary head is a sliver of a large model).
Information instead: parameters behind a value that reached the loss only as a target (see GD110's
frozen teacher). The `evidence` records the counts, the share of their model the parameters hold, the
cut and the backward passes and steps looked at.

## Known problems
A parameter used only on some steps (a head trained on alternate batches) is reported only if no observed step reached it; run longer, or ignore the finding.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD104',
    name='parameter-without-gradient',
    severity=Severity.ERROR,
    detected='R',
    hint='Make the loss depend on these parameters (use the branch, remove the cut), or freeze them with `requires_grad_(False)` and leave them out of the optimizer if they are meant to stay fixed.',
    engines=('graddoctor.explain.patterns',),
    doc=__doc__,
    evidence_needed=(
        'after `backward()`, trainable parameters held by an optimizer or used by the model had `grad` None '
        "on every observed backward and at every checked step of their optimizer, and the loss's graph did not "
        'reach them; an error only when the cut that separated them fed layers that train, or (no cut known) '
        "they hold at least 1% of their model's trainable values; the cut is named only when deep mode recorded it."
    ),
)
