"""GD205 scheduler-misuse (warning, detected at runtime and statically).

## What it does
Finds `lr_scheduler.step()` called before the first `optimizer.step()`, or an epoch-based scheduler (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, ReduceLROnPlateau) stepped every batch: at run time, its second step within one pass over a DataLoader, when its period (step_size, first milestone, T_max, patience, or a tenfold decay for ExponentialLR) is shorter than the pass. A schedule sized in iterations (`T_max=epochs * len(loader)`) stepped per batch is correct and not reported. Without a DataLoader (batches sliced from tensors, a loop of any shape), a scheduler that stepped with every optimizer step is judged at the end of the run by what its schedule did: a decay that brought the rate down to 1% of its start, or a `CosineAnnealingLR` that went down to its minimum and back up (more than 2 * T_max steps; a cosine sized in iterations ends at its minimum and never climbs back). Statically, `lint` reports an epoch scheduler stepped in the batch loop (for `CosineAnnealingLR`, when `T_max` is named for epochs, `T_max=epochs`); periods written in batches (`step_size=10 * len(loader)`) are not reported.

## Why is this bad?
Stepping before the optimizer skips the first value of the schedule. An epoch scheduler stepped per batch decays the learning rate hundreds of times too fast: with StepLR(step_size=30, gamma=0.1) and 500 batches per epoch, the rate is 1e-16 of its start after the first epoch.

## Example
```python
>>> import torch
>>> from torch.optim.lr_scheduler import StepLR
>>> optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
>>> scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
>>> for batch in range(500):       # one epoch of 500 batches
...     optimizer.step()
...     scheduler.step()           # stepped per batch
>>> f"{optimizer.param_groups[0]['lr']:.0e}"
'1e-17'

```

## Use instead
```python
>>> optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
>>> scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
>>> for batch in range(500):
...     optimizer.step()
>>> scheduler.step()               # once per epoch
>>> optimizer.param_groups[0]['lr']
0.1

```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD205',
    name='scheduler-misuse',
    severity=Severity.WARNING,
    detected='RS',
    hint="Step epoch-based schedulers (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, ReduceLROnPlateau) once per epoch, after the epoch's `optimizer.step()` calls; call `scheduler.step()` after `optimizer.step()`.",
    engines=('graddoctor.observers.loop_audit',),
    doc=__doc__,
    evidence_needed=(
        "the scheduler's `step()` ran before the first `optimizer.step()`, or an epoch-based scheduler "
        'stepped once per optimizer step (counts in evidence).'
    ),
)
