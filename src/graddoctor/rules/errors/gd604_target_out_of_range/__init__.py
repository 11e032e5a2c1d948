"""GD604 target-out-of-range (error, detected at runtime).

## What it does
Explains a crash caused by class indices outside `[0, num_classes)`: labels numbered from 1, a classifier head with fewer outputs than there are classes, token ids beyond an embedding's `num_embeddings`, and the CUDA "device-side assert triggered" these cause on a GPU. Under `graddoctor run` it gives the number of classes and the labels' range.

## Why is this bad?
The script stops (on the CPU with `IndexError: Target 3 is out of bounds`, on the GPU with a device-side assert that poisons the CUDA context and often points at a later line).

## Example
```python
>>> import torch
>>> from torch import nn
>>> logits = torch.randn(4, 3)                   # 3 classes: valid labels are 0, 1, 2
>>> labels = torch.tensor([1, 2, 3, 1])          # numbered from 1
>>> nn.functional.cross_entropy(logits, labels)
Traceback (most recent call last):
    ...
IndexError: Target 3 is out of bounds.

```

## Use instead
```python
>>> nn.functional.cross_entropy(logits, labels - 1).shape
torch.Size([])

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD604',
    name='target-out-of-range',
    severity=Severity.ERROR,
    detected='R',
    hint="Make class labels run from 0 to num_classes - 1 (`y = y - 1` for labels numbered from 1), and give the classifier as many outputs as there are classes (`max label + 1`); for embeddings, `num_embeddings` must exceed the largest token id.",
    engines=('graddoctor.explain.training_patterns',),
    doc=__doc__,
    evidence_needed=(
        'the run crashed with a target-out-of-range error that `explain` matched; the exception and its line '
        'are the evidence.'
    ),
)
