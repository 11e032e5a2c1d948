"""GD502 shared-module-copies (warning, detected at runtime and statically).

## What it does
Finds one module object placed several times in a `ModuleList`, `Sequential` or `ModuleDict`, typically built as `[block] * n` or `[block for _ in range(n)]`.

## Why is this bad?
The list repeats a reference, not the layer: the n "layers" are one set of weights applied n times. The model has a fraction of the capacity it was written for, `model.parameters()` counts the weights once, and every "layer" receives the sum of all their gradients.

## Example
```python
>>> import torch
>>> from torch import nn
>>> block = nn.Linear(8, 8)
>>> layers = nn.ModuleList([block] * 4)
>>> sum(p.numel() for p in layers.parameters())
72

```

## Use instead
```python
>>> layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(4)])
>>> sum(p.numel() for p in layers.parameters())
288

```
To share one layer on purpose (ALBERT-style), keep a single module and call it n times in `forward`; `copy.deepcopy(block)` makes independent copies of a configured block.
`graddoctor lint` stays silent where the code says the sharing is meant: the repeated module's name
says so (`shared_head`, `tied_block`) or the repeat sits under a test such as `if config.share_bbox_head:`.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD502',
    name='shared-module-copies',
    severity=Severity.WARNING,
    detected='RS',
    hint='Build a new module for each entry: `nn.ModuleList([Block() for _ in range(n)])` (or `copy.deepcopy(block)` per entry); to share weights on purpose, keep one module and call it n times in `forward`.',
    doc=__doc__,
    evidence_needed=(
        'the same module object found at several places of a `ModuleList`/`Sequential`/`ModuleDict` of a '
        'model the run trained.'
    ),
)
