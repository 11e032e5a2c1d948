"""GD308 low-precision-updates-lost (warning, detected at runtime).

## What it does
Finds parameters kept in bfloat16 or float16, with no float32 master copy, whose optimizer updates are mostly too small for their precision: after a step, most elements that had a nonzero gradient are bit for bit what they were before it.

## Why is this bad?
bfloat16 keeps 8 significant bits: a weight of 0.02 can only move in steps of about 0.0001, and an update smaller than half that step rounds back to the same number. With a fine-tuning learning rate (1e-5 with Adam, where each update is about the learning rate) or small SGD gradients, `p - lr * update` equals `p` for nearly every element, step after step: the loss may still drift (through the elements that happen to be near zero) while the weights do not learn, and no error or NaN ever shows it. float16 has 11 bits and the same failure with smaller updates.

## Example
```python
>>> import torch
>>> from torch import nn
>>> _ = torch.manual_seed(0)
>>> layer = nn.Linear(768, 2).to(torch.bfloat16)             # parameters in bfloat16
>>> before = layer.weight.detach().clone()
>>> opt = torch.optim.AdamW(layer.parameters(), lr=1e-5)
>>> layer(torch.randn(16, 768, dtype=torch.bfloat16)).float().pow(2).mean().backward()
>>> opt.step()
>>> (layer.weight == before).float().mean().item() > 0.8      # most weights did not move
True

```

## Use instead
```python
>>> layer = nn.Linear(768, 2)                                 # float32 parameters (master weights)
>>> before = layer.weight.detach().clone()
>>> opt = torch.optim.AdamW(layer.parameters(), lr=1e-5)
>>> with torch.autocast("cpu", dtype=torch.bfloat16):         # bfloat16 compute only
...     out = layer(torch.randn(16, 768))
>>> out.float().pow(2).mean().backward()
>>> opt.step()
>>> (layer.weight == before).float().mean().item()
0.0

```

## When it warns
Measured on sampled steps (the first 3 of each optimizer, then one in 10): of the bfloat16/float16 parameter elements with a nonzero gradient (up to 65,536 per parameter), the fraction left unchanged by the step. A warning needs at least 3 measured steps with a majority of them leaving at least half of those elements unchanged; its evidence is that fraction, the dtype and the learning rate.

## Correct code it stays silent on
float32 parameters trained under bfloat16 or float16 autocast (the standard mixed precision); low-precision parameters whose learning rate is large enough to move them; optimizers that keep a float32 copy of each parameter in their state (master weights), whose small updates accumulate there.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD308',
    name='low-precision-updates-lost',
    severity=Severity.WARNING,
    detected='R',
    hint='Keep the parameters in float32 and run the forward under `torch.autocast(device_type, dtype=torch.bfloat16)`; '
         'or use an optimizer that keeps float32 master weights (or stochastic rounding).',
    doc=__doc__,
    evidence_needed=(
        "at least 3 measured steps of bfloat16/float16 parameters with no float32 master copy in the optimizer's state, most of them leaving at least half of the elements with a nonzero gradient bit for bit unchanged; evidence: that fraction, the dtype, the learning rate."
    ),
)
