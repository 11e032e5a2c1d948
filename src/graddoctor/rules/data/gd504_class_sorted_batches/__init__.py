"""GD504 class-sorted-batches (warning, detected at runtime).

## What it does
Finds training batches whose class targets are constant within each batch and change between batches: data sorted by class and read in order, with shuffling off.

## Why is this bad?
Each step only shows the model one class, so the optimizer pushes every prediction towards that class and the next batches push it back: the loss swings from batch to batch and the model ends the epoch predicting the last class it saw. Batch normalisation statistics are per class as well.

## Example
```python
>>> import torch
>>> from torch.utils.data import DataLoader, TensorDataset
>>> x, y = torch.randn(8, 2), torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])   # sorted by class
>>> [b.tolist() for _, b in DataLoader(TensorDataset(x, y), batch_size=4)]
[[0, 0, 0, 0], [1, 1, 1, 1]]

```

## Use instead
```python
>>> _ = torch.manual_seed(0)
>>> loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True)
>>> any(len(set(b.tolist())) > 1 for _, b in loader)
True

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD504',
    name='class-sorted-batches',
    severity=Severity.WARNING,
    detected='R',
    hint='Shuffle the training data: `DataLoader(dataset, batch_size=..., shuffle=True)` (or a random permutation of the indices each epoch).',
    doc=__doc__,
    evidence_needed=(
        'class targets constant within each checked batch and changing between batches, over enough checked '
        'batches.'
    ),
)
