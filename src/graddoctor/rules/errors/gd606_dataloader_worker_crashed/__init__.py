"""GD606 dataloader-worker-crashed (error, detected at runtime).

## What it does
Explains a DataLoader worker process that died without a Python error of its own: killed by a signal (a bus error when shared memory `/dev/shm` is full, the kernel's out-of-memory killer, a crash in native code such as an image decoder), exited without a traceback, or hung past the loader's `timeout`. A worker that raises a Python error is explained by that error instead (the "Original Traceback" part).

## Why is this bad?
Training stops, and PyTorch's message names only the worker's process id: the cause (memory, shared memory, a native library) lives in another process whose traceback is gone.

## Example
```python
>>> import torch
>>> from torch.utils.data import DataLoader, TensorDataset
>>> images = TensorDataset(torch.zeros(64, 3, 224, 224))
>>> loader = DataLoader(images, batch_size=32, num_workers=8)  # in Docker: 64 MB of /dev/shm
>>> # next(iter(loader)) -> RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error.

```

## Use instead
```python
>>> loader = DataLoader(images, batch_size=32, num_workers=0)  # find the real error in the main process
>>> next(iter(loader))[0].shape
torch.Size([32, 3, 224, 224])

```
Then give the container more shared memory (`docker run --shm-size=8g`) or use fewer workers.
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD606',
    name='dataloader-worker-crashed',
    severity=Severity.ERROR,
    detected='R',
    hint="Run once with `num_workers=0` to see the real error in the main process; for bus errors give the workers more shared memory (Docker `--shm-size=8g`), for a killed worker use fewer workers or less memory per worker.",
    engines=('graddoctor.explain.worker_patterns',),
    doc=__doc__,
    evidence_needed=(
        'the run stopped with PyTorch\'s own message about a dead or hung DataLoader worker, matched by `explain`; '
        'the signal it names (or the chained error it was raised from) decides the cause, and the exception and '
        'its line are the evidence.'
    ),
)
