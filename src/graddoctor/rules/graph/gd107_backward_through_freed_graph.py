"""GD107 backward-through-freed-graph (error, detected at runtime).

## What it does
Finds a second backward through a graph whose saved tensors were already freed: state such as an RNN hidden state carried from the previous iteration without `detach()`, or two losses sharing a graph without `retain_graph=True`.

## Why is this bad?
PyTorch raises `RuntimeError: Trying to backward through the graph a second time`. Adding `retain_graph=True` everywhere makes the error go away but keeps every iteration's graph alive, so memory and step time grow without bound.

## Example
```python
hidden = model.init_hidden(batch)
for x, y in batches:
    out, hidden = model(x, hidden)   # hidden still attached to last batch's graph
    loss = criterion(out, y)
    loss.backward()
```

## Use instead
```python
hidden = model.init_hidden(batch)
for x, y in batches:
    hidden = hidden.detach()
    out, hidden = model(x, hidden)
    loss = criterion(out, y)
    loss.backward()
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD107',
    name='backward-through-freed-graph',
    severity=Severity.ERROR,
    detected='R',
    hint='Detach state carried across iterations (`hidden = hidden.detach()` at the start of each batch, truncated BPTT). If two losses really share one graph, add them and call `backward()` once; keep `retain_graph=True` for the rare case where you must backpropagate twice.',
    doc=__doc__,
)
