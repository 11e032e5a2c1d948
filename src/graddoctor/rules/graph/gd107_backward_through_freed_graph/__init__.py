"""GD107 backward-through-freed-graph (error, detected at runtime).

## What it does
Finds a second backward through a graph whose saved tensors were already freed: state such as an RNN hidden state carried from the previous iteration without `detach()`, or two losses sharing a graph without `retain_graph=True`.

## Why is this bad?
PyTorch raises `RuntimeError: Trying to backward through the graph a second time`. Adding `retain_graph=True` everywhere makes the error go away but keeps every iteration's graph alive, so memory and step time grow without bound.

## Example
```python
>>> import torch
>>> from torch import nn
>>> cell = nn.RNNCell(4, 4)
>>> hidden = torch.zeros(2, 4)
>>> for x in torch.randn(2, 2, 4):
...     hidden = cell(x, hidden)   # still attached to the last batch's graph
...     hidden.sum().backward()
Traceback (most recent call last):
    ...
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). ...

```

## Use instead
```python
>>> hidden = torch.zeros(2, 4)
>>> for x in torch.randn(2, 2, 4):
...     hidden = cell(x, hidden.detach())
...     hidden.sum().backward()

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD107',
    name='backward-through-freed-graph',
    severity=Severity.ERROR,
    detected='R',
    hint='Detach state carried across iterations (`hidden = hidden.detach()` at the start of each batch, truncated BPTT; an LSTM state tuple element by element: `state = tuple(s.detach() for s in state)`). If two losses really share one graph, add them and call `backward()` once; keep `retain_graph=True` for the rare case where you must backpropagate twice.',
    engines=('graddoctor.explain.patterns', 'graddoctor.observers.provenance_explaining'),
    doc=__doc__,
    evidence_needed=(
        'PyTorch raised the freed-graph error in `backward()`, and the run saw the tensor carried from the '
        'previous iteration.'
    ),
)
