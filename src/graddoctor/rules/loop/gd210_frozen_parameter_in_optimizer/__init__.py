"""GD210 frozen-parameter-in-optimizer (info, detected at runtime).

## What it does
Finds parameters with `requires_grad=False` handed to an optimizer.

## Why is this bad?
Usually harmless (the optimizer skips parameters without gradients), but it often means the freezing happened after the optimizer was built, or that a layer meant to train was frozen by mistake.

## Example
```python
model.backbone.requires_grad_(False)
optimizer = torch.optim.AdamW(model.parameters())
```

## Use instead
```python
model.backbone.requires_grad_(False)
optimizer = torch.optim.AdamW(p for p in model.parameters() if p.requires_grad)
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD210',
    name='frozen-parameter-in-optimizer',
    severity=Severity.INFO,
    detected='R',
    hint='Pass only trainable parameters, keeping your optimizer class and arguments: `(p for p in model.parameters() if p.requires_grad)` in place of `model.parameters()`. If every parameter is frozen, unfreeze the layers that should learn instead.',
    doc=__doc__,
    evidence_needed=(
        "a parameter with `requires_grad=False` is in an optimizer's parameter groups (information only)."
    ),
)
