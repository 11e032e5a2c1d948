"""GD304 vanishing-gradients (warning, detected at runtime).

## What it does
Finds layers whose gradients fade along depth: orders of magnitude below those of the layers between them and the loss.

Evidence for a warning: a layer's gradient RMS (per element) is below 3e-3 of the upper-quartile layer's on at least half of 3 or more measured steps (`vanish_ratio`), *and* on its path to the loss some layer is not that small, so the gradient was attenuated through depth. The path is read from the loss's autograd graph once per loss series. Healthy networks measured (deep ReLU MLPs, residual LayerNorm nets, transformers) keep every layer above 1e-2; a 6-layer sigmoid MLP's first layer sits near 1e-3.

A warning also needs the harm in what the optimizer applied: those layers' updates (the change of their weights per step, relative to the weights) are below 1e-2 of the upper-quartile layer's (median over the measured steps, `slow_update_ratio`), or, where updates were not measured, their optimizer steps in proportion to the gradient (SGD, with or without momentum). Adam, AdamW, RMSprop, Adagrad and their kin rescale each element: small gradients there still move a layer like the rest, and the finding is information, with the measured updates in its evidence. Gradients so small that Adam's `eps` dominates them do shrink the updates, and stay a warning.

Stays silent (or at most info) on: fresh attention query/key layers of a BERT-style model trained with AdamW (small raw gradients, ordinary updates); a branch whose gradients are small all the way up to its loss, because its loss term is weighted down on purpose (a capsule network's reconstruction decoder under a 0.0005 weight: the printed fix, residual connections and normalisation, would not apply); embedding tables, where only the rows of the batch's tokens get a gradient, which dilutes their per-element RMS by the vocabulary size.

## Why is this bad?
Those layers, usually the early ones, barely move: the network trains like a much shallower one. In the example below, the first of 20 sigmoid layers gets a gradient more than ten orders of magnitude smaller than the last.

## Example
```python
>>> import torch
>>> from torch import nn
>>> net = nn.Sequential(*[m for _ in range(20) for m in (nn.Linear(64, 64), nn.Sigmoid())])
>>> net(torch.randn(16, 64)).sum().backward()
>>> bool(net[0].weight.grad.norm() < 1e-10 * net[-2].weight.grad.norm())   # first vs last layer
True

```

## Use instead
```python
>>> net = nn.Sequential(*[m for _ in range(20) for m in (nn.Linear(64, 64), nn.LayerNorm(64), nn.GELU())])
>>> net(torch.randn(16, 64)).sum().backward()
>>> bool(net[0].weight.grad.norm() > 1e-2 * net[-3].weight.grad.norm())
True

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD304',
    name='vanishing-gradients',
    severity=Severity.WARNING,
    detected='R',
    hint='Use residual connections, normalisation (LayerNorm/BatchNorm), ReLU-family activations instead of sigmoid/tanh stacks, and a suitable initialisation.',
    doc=__doc__,
    evidence_needed=(
        "layers whose per-element gradient RMS is below 3e-3 of the upper-quartile layer's on at least half "
        'of 3+ measured steps, attenuated along depth, *and* whose updates (update/weight ratio relative to '
        "the other layers', median over measured steps) are below 1e-2 of the others', or, unmeasured, whose "
        'optimizer does not rescale (SGD). With Adam-style rescaling and ordinary updates: info. Measured '
        'updates in `evidence`.'
    ),
)
