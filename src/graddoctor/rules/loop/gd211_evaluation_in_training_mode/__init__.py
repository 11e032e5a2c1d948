"""GD211 evaluation-in-training-mode (warning, detected at runtime and statically).

## What it does
Finds evaluation passes (forward passes under `no_grad`/`inference_mode`, or whose outputs never reach a backward, between training steps or after training) of a model whose dropout, batch-norm or instance-norm-with-running-statistics layers are still in training mode, because `model.eval()` was never called.

## Why is this bad?
In training mode dropout still zeroes activations at random, so test predictions are noisy and the accuracy is lower than the model's; batch norm normalises with the statistics of the evaluation batch and overwrites its running statistics with evaluation data, so later training and inference use statistics that are not the training set's.

## Example
```python
>>> import torch
>>> from torch import nn
>>> _ = torch.manual_seed(0)
>>> model, x_test = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5)), torch.randn(2, 4)
>>> with torch.no_grad():            # evaluation, but the model is still in training mode
...     torch.equal(model(x_test), model(x_test))   # dropout still on: two answers
False

```

## Use instead
```python
>>> _ = model.eval()                 # dropout off, batch norm uses its running statistics
>>> with torch.no_grad():
...     torch.equal(model(x_test), model(x_test))
True
>>> _ = model.train()                # and back to training mode before the next training step

```

## Known problems
At runtime a forward pass counts as an evaluation when no backward ran between it and the model's next forward pass (or the end of the run), and its input is not the batch the model has just been trained on: a generator sampled for the discriminator's step, a teacher or a target network, and a model whose output is another model's input (a GAN's generator) are left alone. Dropout layers switched to training mode one by one (`m.train()` on the dropout modules: MC dropout) are not counted. Statically, only a forward after the training loop or inside an evaluation function (`evaluate`, `test`, `validate`, `predict`, `infer`..., or a function whose body runs under `no_grad`; a `generate` or `sample` function is not one, since sampling with dropout on is sometimes meant) of a model whose class visibly holds dropout or batch norm is reported, when no `eval()` is called on the way (a `model.eval` statement without its parentheses calls nothing, and the finding points at it); and, beside a training loop, a forward under `no_grad`/`inference_mode` (`model(x)`, or a method such as `model.validation_step(batch)` that calls `self(...)`) of such a model that nothing in the file puts in eval mode, when its result reaches no backward (a target network's or a teacher's output does).
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD211',
    name='evaluation-in-training-mode',
    severity=Severity.WARNING,
    detected='RS',
    hint='Call `model.eval()` before evaluating (and `model.train()` again before the next training step).',
    doc=__doc__,
    evidence_needed=(
        'an evaluation pass (no backward, or under no_grad) ran with modules in training mode that change the '
        'output (dropout p > 0, batch/instance norm with running statistics).'
    ),
)
