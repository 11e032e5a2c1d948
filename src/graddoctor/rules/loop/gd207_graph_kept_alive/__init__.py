"""GD207 graph-kept-alive (warning, detected at runtime and statically).

## What it does
Finds tensors with autograd history kept across iterations (`total += loss`, appending outputs to a list, an eval loop without `no_grad`), so memory grows step after step. At run time every result of a `torch.nn.functional` loss (and so of the nn loss modules) is followed, also in an evaluation that runs between optimizer steps; other tensors are checked in sampled iterations.

## Why is this bad?
Each kept tensor holds its whole computation graph, with every saved activation, alive: memory grows with every iteration until the process runs out of memory, and the step time grows with it.

## Example
```python
>>> import torch
>>> from torch import nn
>>> model = nn.Linear(4, 1)
>>> batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
>>> total_loss = 0
>>> for x, y in batches:
...     loss = nn.functional.mse_loss(model(x), y)
...     loss.backward()
...     total_loss += loss
>>> total_loss.grad_fn is not None     # every batch's graph is still alive
True

```

## Use instead
```python
>>> total_loss = 0.0
>>> for x, y in batches:
...     loss = nn.functional.mse_loss(model(x), y)
...     loss.backward()
...     total_loss += loss.item()
>>> type(total_loss)
<class 'float'>

```

## When it warns
It judges how long a graph lives, not how it was stored. At run time the evidence is one of:
- results of one loss line pile up alive (10 or more at once, the oldest made 10 calls earlier) and no backward runs while they live: graphs built and never trained on, as in an evaluation without `no_grad`;
- such a pile, after a backward, is still alive 2 optimizer steps later: a running total or a list of losses that outlives the steps that used it;
- an op after `step()` extends the graph of the iteration just stepped (`total += loss`), and its graph is still alive 2 optimizer steps later, chained into the next iteration's;
- a tensor with history made in a sampled iteration is still alive 2 optimizer steps after it.

## Correct code it stays silent on
History that is released within the next optimizer step: a reinforcement-learning episode's lists of log-probabilities, values and losses, stacked, backpropagated once and cleared; a metric read from the step's own logits after `step()` (`_, pred = out.topk(1)`, `out.max(1)`, `softmax(out).argmax(1)`), rebound next iteration; a MAML outer step's per-task losses and fast weights built with `create_graph=True`; the previous batch's loss kept in a variable; one loss per head of a deep-supervised model.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD207',
    name='graph-kept-alive',
    severity=Severity.WARNING,
    detected='RS',
    hint='Accumulate numbers, not tensors: `total += loss.item()` (or `loss.detach()`); run evaluation under `torch.no_grad()`.',
    engines=('graddoctor.explain.training_patterns',),
    doc=__doc__,
    evidence_needed=(
        'tensors with autograd history were kept alive across optimizer steps (the kept graph and the line '
        'that keeps it are recorded).'
    ),
)
