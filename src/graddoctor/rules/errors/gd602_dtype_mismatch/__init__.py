"""GD602 dtype-mismatch (error, detected at runtime).

## What it does
Explains a crash caused by dtypes that do not fit: float64 data (numpy's default) fed to a float32 model, float class targets where `CrossEntropyLoss`/`NLLLoss` expect `long` indices, `requires_grad` asked of an integer tensor. Under `graddoctor run` it names both dtypes and which tensor had which.

## Why is this bad?
The script stops at the first batch, and the message speaks of "mat1 and mat2" or "Double and Float" without saying which tensor is the data and which the weights.

## Example
```python
>>> import numpy as np
>>> import torch
>>> from torch import nn
>>> model = nn.Linear(3, 2)
>>> x = torch.from_numpy(np.ones((4, 3)))        # float64, like every numpy array by default
>>> model(x)
Traceback (most recent call last):
    ...
RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float

```

## Use instead
```python
>>> x = torch.from_numpy(np.ones((4, 3))).float()
>>> model(x).dtype
torch.float32

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD602',
    name='dtype-mismatch',
    severity=Severity.ERROR,
    detected='R',
    hint="Convert the data to the model's dtype where it is loaded (`x = x.float()`, `torch.from_numpy(a).float()`); give class-index targets as `long` (`y = y.long()`); make parameters float tensors.",
    engines=('graddoctor.explain.training_patterns',),
    doc=__doc__,
    evidence_needed=(
        'the run crashed with a dtype error that `explain` matched; the exception and its line are the '
        'evidence.'
    ),
)
