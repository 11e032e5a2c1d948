"""GD506 batch-dimension-mix-up (warning, detected at runtime).

## What it does
Finds a sequence layer that reads (sequence, batch, feature) input (`nn.RNN`, `nn.LSTM`, `nn.GRU`, `nn.MultiheadAttention`, `nn.Transformer` and its encoder and decoder, built without `batch_first=True`) given batches laid out (batch, sequence, feature): dimension 0 of its input is the batch size of the targets or of the DataLoader while dimension 1 is not.

## Why is this bad?
The layer takes the samples of the batch for the time steps of one sequence: the recurrence (or attention) runs across samples, and each sample's output depends on the other samples of the batch instead of its own sequence. Nothing fails, because the output has the shape the rest of the model expects, but the model cannot learn the task: the loss stays near its starting value (ln of the number of classes for a classifier).

## Example
```python
>>> import torch
>>> from torch import nn
>>> lstm = nn.LSTM(input_size=8, hidden_size=16)           # expects (seq, batch, feature)
>>> x = torch.randn(32, 20, 8)                              # a DataLoader batch: (batch, seq, feature)
>>> out, _ = lstm(x)
>>> out[:, -1].shape     # runs, but the 32 samples were read as 32 time steps
torch.Size([32, 16])

```

## Use instead
```python
>>> lstm = nn.LSTM(input_size=8, hidden_size=16, batch_first=True)
>>> out, _ = lstm(x)
>>> out[:, -1].shape     # the last time step of each of the 32 sequences
torch.Size([32, 16])

```

## Known problems
Without a DataLoader or a loss whose target has the batch as dimension 0 (a token loss over a flattened `(batch * seq)` target, with batches sliced from tensors), the batch size is unknown and nothing is reported. When the batch size equals the sequence length no verdict is possible. A sequence-first program that compares outputs with targets of the same (sequence, batch, feature) layout is recognised by dimension 1 appearing in the loss and left alone.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD506',
    name='batch-dimension-mix-up',
    severity=Severity.WARNING,
    detected='R',
    hint='Build the layer with `batch_first=True` (for a Transformer encoder, on its layer: `nn.TransformerEncoderLayer(..., batch_first=True)`), or give it `x.transpose(0, 1)` and transpose its output back.',
    doc=__doc__,
    evidence_needed=(
        'a sequence layer without `batch_first` given a 3-D input whose dimension 0 is the batch size of the '
        'targets or of the DataLoader and whose dimension 1 is neither a batch size nor another dimension of '
        "the loss; a dimension 1 of size 1 needs the DataLoader's batch at dimension 0. Shapes in `evidence`."
    ),
)
