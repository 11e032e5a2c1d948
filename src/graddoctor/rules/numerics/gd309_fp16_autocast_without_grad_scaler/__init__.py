"""GD309 fp16-autocast-without-grad-scaler (warning, detected at runtime).

## What it does
Finds training steps whose forward pass ran under float16 autocast with no (enabled) `GradScaler`, and whose gradients show underflow: many elements exactly zero while a large share of the others sit within 16 times of float16's smallest number.

## Why is this bad?
Under float16 autocast the backward pass runs its matrix products in float16, whose smallest positive number is about 6e-8 (2^-24) and whose full precision stops at 6e-5. Gradients smaller than that round to exactly 0: the smallest updates, often those of the early layers or of a model that already fits well, vanish without a NaN or an error. `GradScaler` multiplies the loss by a large factor before backward and divides the gradients back before the step, which is why fp16 mixed precision needs it; a scaler created with `enabled=False` (a config typo) or left out does nothing. bfloat16 has float32's range and needs no scaler.

## Example
```python
>>> import torch
>>> from torch import nn
>>> _ = torch.manual_seed(0)
>>> layer, x = nn.Linear(64, 1), torch.randn(256, 64)
>>> with torch.autocast("cpu", dtype=torch.float16):
...     loss = (layer(x).float() * 1e-6).mean()          # a small loss: gradients near 1e-8
>>> loss.backward()
>>> (layer.weight.grad == 0).float().mean().item() > 0.5  # most of them underflowed to 0
True

```

## Use instead
```python
>>> layer.zero_grad()
>>> scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16)
>>> with torch.autocast("cpu", dtype=torch.float16):
...     loss = (layer(x).float() * 1e-6).mean()
>>> scaler.scale(loss).backward()                         # scaled up before float16 sees it
>>> scaler.unscale_(torch.optim.SGD(layer.parameters(), lr=0.1))
>>> (layer.weight.grad == 0).float().mean().item()
0.0

```

## When it warns
Measured on sampled steps (the first 3, then one in 10) whose model forward ran under float16 autocast, when no enabled GradScaler was called in the run: the fraction of the trained parameters' gradient elements that are exactly 0 (at least 25%) and the fraction that are nonzero but below 2^-20 (at least 5%: the gradient distribution runs into float16's floor, so part of it fell below). A warning needs 2 such steps; its evidence holds both fractions, the autocast dtype and whether a scaler was seen.

## Correct code it stays silent on
bfloat16 autocast without a scaler (bfloat16 has float32's exponent range); float16 autocast with an enabled `GradScaler`; float16 autocast whose gradients stay well above float16's floor.

## Known problems
Gradients that are exactly zero for structural reasons (dead ReLU units, unused embedding rows) are counted with the underflowed ones; the near-floor share is what shows that float16's range, not the model, made the zeros.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD309',
    name='fp16-autocast-without-grad-scaler',
    severity=Severity.WARNING,
    detected='R',
    hint='Use a GradScaler with float16 autocast: `scaler = torch.amp.GradScaler()`, `scaler.scale(loss).backward()`, '
         '`scaler.step(optimizer)`, `scaler.update()` (check that it is enabled); or autocast to torch.bfloat16.',
    doc=__doc__,
    evidence_needed=(
        "2 sampled steps whose forward ran under float16 autocast with no enabled GradScaler in the run, with at least 25% of the gradient elements exactly 0 and at least 5% within 16 times of float16's smallest number; evidence: both fractions, the autocast dtype, whether a scaler was seen."
    ),
)
