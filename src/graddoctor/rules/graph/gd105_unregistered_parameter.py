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
)
