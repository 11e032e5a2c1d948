"""GD110 grad-mode-off (error, detected at runtime and statically).

## What it does
Finds a loss, or the part of the forward pass that trainable parameters feed, computed while gradient recording was off: `with torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled(False)`, or a helper decorated with `@torch.no_grad()` reused in training.

## Why is this bad?
Nothing computed with grad mode off is recorded, so `backward()` raises `element 0 of tensors does not require grad` or, when only part of the forward ran there, the parameters before it silently get no gradient. Calling `backward()` itself inside `no_grad` on a loss built outside it is fine and is not reported.

## Example
```python
>>> import torch
>>> from torch import nn
>>> encoder, head = nn.Linear(4, 8), nn.Linear(8, 1)
>>> x, y = torch.randn(8, 4), torch.randn(8, 1)
>>> with torch.no_grad():
...     features = encoder(x)
...     loss = nn.functional.mse_loss(head(features), y)
>>> loss.backward()
Traceback (most recent call last):
    ...
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

```

## Use instead
```python
>>> features = encoder(x)
>>> loss = nn.functional.mse_loss(head(features), y)
>>> with torch.no_grad():     # backward itself may run here
...     loss.backward()
>>> encoder.weight.grad is not None
True

```

## Where it points
At the line that turned grad mode off (the `with torch.no_grad():` line, the decorator),
with the line computed there and, at runtime, the parameters that lost their gradient
(`all of encoder`): the same situation as GD104 when the cut is grad mode.

## Evidence of harm
An error when the loss itself has no history, or when what ran with grad mode off was then fed, with
grad mode on, into an op that takes a trainable parameter (`head(features)`): layers that train were fed by
layers that do not. When that value reached the loss only as a target (a distillation teacher's logits,
compared with the student's by a KL term, as vit-pytorch's `DistillWrapper` does), the teacher is frozen by
design: information, even when the optimizer holds its parameters (`evidence["cut_fed_trained_layers"]`).
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD110',
    name='grad-mode-off',
    severity=Severity.ERROR,
    detected='RS',
    hint='Compute the forward pass and the loss with gradient recording on: move them out of `torch.no_grad()` / `torch.inference_mode()`, or remove the `@torch.no_grad()` decorator from the helper used in training.',
    engines=('graddoctor.observers.graph_checks',),
    doc=__doc__,
    evidence_needed=(
        'the loss, or the part of the forward pass trainable parameters feed, was computed with grad mode off '
        "(the region's entry is recorded), and what it computed fed a layer that trains; a value used only as "
        'a target (a frozen teacher) gives information.'
    ),
)
