"""GD213 wrong-optimizer-stepped (error, detected at runtime and statically).

## What it does
Finds a backward whose gradients reach parameters that only one optimizer holds, followed by a step of a different optimizer, iteration after iteration, while the optimizer that holds those parameters never steps (a GAN's generator step that calls `d_optimizer.step()` after `g_loss.backward()`).

## Why is this bad?
The gradients computed for one model are thrown away (cleared at the next `zero_grad()`) and that model never changes, while the other optimizer takes an extra step on gradients meant for a different loss. Nothing raises: the losses still print, but one of the models never learns.

## Example
```python
>>> import torch
>>> from torch import nn
>>> generator, critic = nn.Linear(2, 2), nn.Linear(2, 1)
>>> g_optimizer = torch.optim.SGD(generator.parameters(), lr=0.1)
>>> d_optimizer = torch.optim.SGD(critic.parameters(), lr=0.1)
>>> before = generator.weight.detach().clone()
>>> for _ in range(3):
...     g_optimizer.zero_grad()
...     g_loss = -critic(generator(torch.randn(4, 2))).mean()
...     g_loss.backward()
...     d_optimizer.step()          # the critic's optimizer: the generator never moves
>>> torch.equal(generator.weight, before)
True

```

## Use instead
```python
>>> for _ in range(3):
...     g_optimizer.zero_grad()
...     g_loss = -critic(generator(torch.randn(4, 2))).mean()
...     g_loss.backward()
...     g_optimizer.step()
>>> torch.equal(generator.weight, before)
False

```

## Known problems
At runtime the finding needs an optimizer that never stepped in the whole run, whose own parameters received gradients that were cleared again at least twice without being used, each time after another optimizer stepped: an optimizer that steps every k iterations (gradient accumulation) steps at some point and is never reported, and a run stopped with `--max-steps` before that optimizer's first step is reported only if its gradients were cleared unused. Statically, only a loop whose body clears one optimizer's gradients (`a.zero_grad()`), calls `backward()` and then steps another optimizer, while the first is stepped nowhere in the file and never handed to a function, is reported.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD213',
    name='wrong-optimizer-stepped',
    severity=Severity.ERROR,
    detected='RS',
    hint='Step the optimizer that holds the parameters this backward computed gradients for.',
    doc=__doc__,
    evidence_needed=(
        "at least twice, a backward wrote gradients to parameters that only optimizer A holds, another optimizer stepped, and A's gradients were cleared unused, while A never stepped in the run; evidence: the wasted gradients, both optimizers, the steps."
    ),
)
