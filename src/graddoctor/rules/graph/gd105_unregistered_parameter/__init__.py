"""GD105 unregistered-parameter (error, detected at runtime and statically).

## What it does
Finds leaf tensors that require grad and reach the loss but are not in `model.parameters()`: submodules kept in a plain Python list or dict, tensors stored as attributes with `requires_grad=True`.

## Why is this bad?
`model.parameters()` does not see them, so an optimizer built from it never updates them; `model.to(device)`, `state_dict()` and `model.train()/eval()` skip them as well, so they silently stay on the CPU, are not saved, and keep their initial values.

## Example
```python
>>> import torch
>>> from torch import nn
>>> class Net(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.layers = [nn.Linear(8, 8) for _ in range(3)]   # plain list
...         self.scale = torch.ones(8, requires_grad=True)      # plain tensor
>>> list(Net().parameters())
[]

```

## Use instead
```python
>>> class Net(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(3))
...         self.scale = nn.Parameter(torch.ones(8))
>>> len(list(Net().parameters()))
7

```

## Known problems
`lint` stays silent where the registration is deliberate: a plain list of `nn.Parameter`s, or a tensor with `requires_grad=True`, that the file hands to an optimizer (directly, inside a param group, or through a helper that returns it), as ZeRO-style sharding, fp32 master copies and temperature scaling do. A plain list of `nn.Parameter`s that no optimizer gets is reported as Parameters, with `nn.ParameterList` as the fix.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD105',
    name='unregistered-parameter',
    severity=Severity.ERROR,
    detected='RS',
    hint='Register it: wrap a list of modules in `nn.ModuleList` (a dict in `nn.ModuleDict`), and a learnable tensor in `nn.Parameter`, assigned as a module attribute.',
    doc=__doc__,
    evidence_needed=(
        "a leaf tensor that requires grad reached the loss's graph and received a gradient, but is in no "
        '`model.parameters()` and no optimizer.'
    ),
)
