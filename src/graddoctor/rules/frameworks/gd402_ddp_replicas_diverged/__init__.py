"""GD402 ddp-replicas-diverged (error, detected at runtime).

## What it does
Finds replicas whose parameters differ across ranks after a step.

## Why is this bad?
Data parallel training assumes identical replicas; once they drift, each rank trains a different model and the averaged gradients fit none of them.

## Example
```python
if rank == 0:
    ddp.module.fc.weight.data.mul_(0.5)   # edits one replica
```

## Use instead
```python
with torch.no_grad():
    ddp.module.fc.weight.mul_(0.5)   # the same edit on every rank
```

## Known problems
Checked under `torchrun ... graddoctor run` only, at sampled steps (the first
three optimizer steps, then every tenth; once 20 samples are held, every
twentieth, then every fortieth..., so that at most 20 samples span the whole
run), on the parameters of modules wrapped in DistributedDataParallel. Each rank
records an exact fingerprint (the sum of the parameter's bits read as integers)
and rank 0 compares them at the end, so a divergence between two samples is
reported at the next sampled step. Nothing is sent between ranks during
training; docs/distributed.md gives the sizes and the cost at 1,000 ranks.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD402',
    name='ddp-replicas-diverged',
    severity=Severity.ERROR,
    detected='R',
    hint='Make every rank take the same steps: the same model initialisation (broadcast or same seed), no rank-dependent optimizer steps or parameter edits outside DDP, and BatchNorm buffers synced (`SyncBatchNorm` or `broadcast_buffers=True`).',
    doc=__doc__,
    evidence_needed=(
        'parameter checksums compared across ranks after a step differ.'
    ),
)
