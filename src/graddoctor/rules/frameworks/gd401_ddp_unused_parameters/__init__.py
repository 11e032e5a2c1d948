"""GD401 ddp-unused-parameters (error, detected at runtime).

## What it does
Finds parameters that take no part in the forward pass under DistributedDataParallel, the cause of "Expected to have finished reduction in the prior iteration".

## Why is this bad?
DDP waits for a gradient from every parameter before it all-reduces; parameters that get none leave the reduction unfinished, and the next iteration raises.

## Example
```python
ddp = DDP(Net())   # Net.aux_head is never used in forward
```

## Use instead
```python
net = Net()
net.aux_head.requires_grad_(False)
ddp = DDP(net)
```

## Known problems
Judged on what the first three backward passes reach. A parameter used only on
some later steps is reported even though `find_unused_parameters=True` handles
it; PyTorch's own message lists only parameter indices
(TORCH_DISTRIBUTED_DEBUG=DETAIL gives names), graddoctor names them.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD401',
    name='ddp-unused-parameters',
    severity=Severity.ERROR,
    detected='R',
    hint='Use every parameter in `forward`, freeze the unused ones (`requires_grad_(False)`) before wrapping in DDP, or pass `find_unused_parameters=True` if the set of used parameters really changes between steps.',
    engines=('graddoctor.observers.ddp', 'graddoctor.explain.patterns'),
    doc=__doc__,
    evidence_needed=(
        "DDP's unused-parameter error, or parameters of the DDP-wrapped model without a gradient after "
        'backward.'
    ),
    supersedes=("GD104",),
)
