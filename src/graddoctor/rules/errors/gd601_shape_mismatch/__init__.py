"""GD601 shape-mismatch (error, detected at runtime).

## What it does
Explains a crash caused by shapes that do not fit: a layer given inputs of the wrong size (`mat1 and mat2 shapes cannot be multiplied`), a loss whose input and target differ in batch size or shape, a class-probability target where class indices are expected, a broadcast that fails. Under `graddoctor run` it names the layer or loss and the shapes it received.

## Why is this bad?
The script stops at the first batch. PyTorch's message gives the sizes of the matrices inside the op, not which layer received them or what its size is, so the fix (the layer's `in_features`, a flatten, a squeeze of the target) is left to guess.

## Example
```python
>>> import torch
>>> from torch import nn
>>> head = nn.Linear(64, 10)          # but the features have 128 columns
>>> head(torch.randn(32, 128))
Traceback (most recent call last):
    ...
RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x128 and 64x10)

```

## Use instead
```python
>>> head = nn.Linear(128, 10)         # in_features = the input's last dimension
>>> head(torch.randn(32, 128)).shape
torch.Size([32, 10])

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD601',
    name='shape-mismatch',
    severity=Severity.ERROR,
    detected='R',
    hint="Make the sizes agree where they meet: a layer's input size must equal the last dimension of what it receives (`nn.Linear(in_features, ...)`, flatten first), and a loss's input and target must share the batch size (and the shape, for element-wise losses).",
    engines=('graddoctor.explain.training_patterns',),
    doc=__doc__,
    evidence_needed=(
        'the run crashed with a shape error that `explain` matched; the exception and its line are the '
        'evidence.'
    ),
)
