"""GD108 saved-tensor-modified-in-place (error, detected at runtime).

## What it does
Finds the in-place operation that changed a tensor autograd had saved for the backward pass (PyTorch's "modified by an inplace operation" error), and names its line.

When the tensor is a parameter (or a view of one, as the `weight.t()` a Linear layer saves), the edit is often not an `x.op_()` at all: an optimizer's `step()` that ran between the forward pass and this backward pass (a GAN calling `opt_D.step()` before `G_loss.backward()`), or an edit under `torch.no_grad()` such as a max-norm constraint applied before backward; the finding then names that `step()` or that edit, and the parameter.

## Why is this bad?
The backward pass needs the saved value to compute gradients; after the in-place edit it would compute wrong ones, so PyTorch refuses with `RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation`, without saying where the edit happened.

## Example
```python
>>> import torch
>>> x, w = torch.randn(2, 3), torch.randn(3, 3, requires_grad=True)
>>> h = torch.sigmoid(x @ w)    # sigmoid saves its output
>>> _ = h.mul_(2)               # edits it in place
>>> h.sum().backward()
Traceback (most recent call last):
    ...
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: ...

```

## Use instead
```python
>>> h = torch.sigmoid(x @ w)
>>> h = h * 2
>>> h.sum().backward()

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD108',
    name='saved-tensor-modified-in-place',
    severity=Severity.ERROR,
    detected='R',
    hint='Use the out-of-place form (`x = x.relu()` instead of `x.relu_()`, `x = x + 1` instead of `x += 1`), or `clone()` the tensor before editing it.',
    engines=('graddoctor.explain.patterns', 'graddoctor.observers.provenance_explaining'),
    doc=__doc__,
    evidence_needed=(
        'PyTorch raised the in-place modification error, and deep mode recorded the in-place op on the saved '
        'tensor.'
    ),
)
