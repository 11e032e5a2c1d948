"""GD507 all-targets-ignored (error when no batch has a target left, else warning; detected at runtime).

## What it does
Finds classification losses (`cross_entropy`, `CrossEntropyLoss`, `nll_loss`, `NLLLoss`) given batches in which every target equals `ignore_index` (-100 by default): labels masked out entirely by truncation, a wrong collator or a prompt mask that covers the whole sequence.

## Why is this bad?
A batch whose targets are all ignored has nothing to learn from: with `reduction='mean'` the loss divides 0 by 0 and is NaN, with `reduction='sum'` it is 0, and every gradient is exactly 0. When every batch is like that, the optimizer steps but the model never changes for the loss, and the logged loss is NaN or 0 from the start, which looks like a numerical problem rather than a data one.

## Example
```python
>>> import torch
>>> from torch import nn
>>> _ = torch.manual_seed(0)
>>> logits = torch.randn(6, 10, requires_grad=True)   # 6 tokens, vocabulary of 10
>>> labels = torch.full((6,), -100)                    # a collator that masked every token
>>> nn.functional.cross_entropy(logits, labels)
tensor(nan, grad_fn=<NllLossBackward0>)

```

## Use instead
```python
>>> labels = torch.tensor([3, 1, -100, -100, 7, 2])    # mask only the padding (and the prompt)
>>> bool(nn.functional.cross_entropy(logits, labels).isfinite())
True

```

## When it warns
The counts of the loss calls with index targets: how many batches had every target equal to `ignore_index`, of how many checked, per loss line. All of them (at least 2): an error, nothing can learn. At least 2 batches but not all: a warning, those steps are wasted (and their NaN loss poisons averages). A single such batch: information.

## Correct code it stays silent on
Padding and prompt tokens ignored while some targets remain in every batch, as in any language model; a batch with a few ignored targets; losses with probability (floating-point) targets.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD507',
    name='all-targets-ignored',
    severity=Severity.WARNING,
    detected='R',
    hint='Check the labels the collator builds: keep the answer tokens (mask only the prompt and padding with -100), '
         'and make sure truncation does not cut every labelled token off.',
    doc=__doc__,
    evidence_needed=(
        'cross_entropy/nll_loss batches whose every index target equals ignore_index: an error when every checked batch (at least 2) is so, a warning from 2 such batches, info for one; evidence: the batches checked and fully ignored, the steps.'
    ),
)
