"""GD113 checkpoint-input-without-grad (error, detected at runtime).

## What it does
Finds a reentrant activation checkpoint, `torch.utils.checkpoint.checkpoint(stage, x, use_reentrant=True)` (also Hugging Face's `gradient_checkpointing_enable()` with reentrant checkpointing), none of whose tensor inputs requires grad, while the stage holds trainable parameters.

## Why is this bad?
A reentrant checkpoint runs its stage without recording a graph and hooks the recomputation onto its inputs. When no input requires grad, its output has no history: backward never recomputes the stage, and the stage's parameters get no gradient. torch only warns ("None of the inputs have requires_grad=True. Gradients will be None"). It is the usual way LoRA/PEFT adapters stay untrained: the embeddings are frozen, so the first block's input does not require grad.

## Example
```python
>>> import warnings
>>> import torch
>>> from torch import nn
>>> from torch.utils.checkpoint import checkpoint
>>> embed, block = nn.Embedding(10, 8), nn.Linear(8, 8)
>>> embed.requires_grad_(False)
Embedding(10, 8)
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     out = checkpoint(block, embed(torch.tensor([1, 2])), use_reentrant=True)
>>> out.requires_grad
False

```

## Use instead
```python
>>> out = checkpoint(block, embed(torch.tensor([1, 2])), use_reentrant=False)
>>> out.sum().backward()
>>> block.weight.grad is not None
True

```

## Where it points
At the `checkpoint(...)` line, once for all the layers of its stage, with the parameters that
get no gradient as subjects.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD113',
    name='checkpoint-input-without-grad',
    severity=Severity.ERROR,
    detected='R',
    hint='Pass `use_reentrant=False` to `checkpoint(...)`, or give it an input that requires grad; for PEFT/LoRA models call `model.enable_input_require_grads()`.',
    doc=__doc__,
    evidence_needed=(
        'a backward walked from the loss reached a reentrant checkpoint (a CheckpointFunction node) none of whose inputs required grad, and trainable parameters used only inside its stages received no gradient; evidence: the construct, the number of inputs requiring grad (0), the parameters left without gradient.'
    ),
)
