"""DataLoader worker processes that died without a Python error (GD606).

A worker that raises is explained by the error it raised (training_patterns.py
unwraps "Caught X in DataLoader worker process N"). These are the other deaths:
a signal (bus error from a full /dev/shm, the kernel's OOM killer, a native
crash), an exit with no traceback, a worker that hangs past the timeout. The
texts are torch 2.13's own (torch/utils/data/dataloader.py and the worker
signal handlers in libtorch_python), checked in tests/explain.
"""

from __future__ import annotations

from graddoctor.explain.pattern import ErrorPattern
from graddoctor.explain.pattern import pattern as _p

_SHM_HINT = (
    "Give the workers more shared memory: in Docker `--shm-size=8g` (or `--ipc=host`), on Kubernetes a memory-backed "
    "`emptyDir` volume mounted at /dev/shm; or pass fewer, smaller tensors between processes "
    "(fewer `num_workers`, a lower `prefetch_factor`, smaller batches), or call "
    "`torch.multiprocessing.set_sharing_strategy('file_system')` at the top of the script."
)


def _by_signal(groups: dict[str, str]) -> tuple[str | None, str | None]:
    """The signal says which of three different causes killed the worker."""
    signal = groups.get("signal", "").strip().rstrip(".")
    if signal.startswith("Bus error"):
        return (
            f"DataLoader worker process {groups['pid']} was killed by a bus error: the workers hand "
            "batches to the main process through shared memory (/dev/shm), and it ran out. Docker gives "
            "containers 64 MB of it by default, less than a few batches of images.",
            _SHM_HINT,
        )
    if signal.startswith("Killed"):
        return (
            f"DataLoader worker process {groups['pid']} was killed by the operating system (SIGKILL), "
            "almost always the out-of-memory killer: each worker holds its own copy of whatever the "
            "dataset object holds, and a Python list of samples is copied page by page as the workers "
            "read it (reference counts write to every object).",
            "Use fewer workers or a lower `prefetch_factor`; keep the dataset's samples in numpy arrays or "
            "tensors instead of Python lists of objects, or load them lazily in `__getitem__` instead of "
            "holding everything in `__init__`.",
        )
    return (
        f"DataLoader worker process {groups['pid']} was killed by the signal {signal or 'shown'}: native code "
        "running in the worker (an image decoder, OpenCV with its own threads, a C extension in the "
        "dataset or its transforms) crashed, so there is no Python traceback.",
        "Run once with `num_workers=0`: the same code then crashes in the main process, where a debugger "
        "or `python -X faulthandler train.py` shows the line. For OpenCV call `cv2.setNumThreads(0)` in "
        "the dataset module.",
    )


WORKER_PATTERNS: list[ErrorPattern] = [
    _p(
        "GD606",
        r"DataLoader worker \(pid (?P<pid>\d+)\) is killed by signal: (?P<signal>[^.\n]*)",
        "A DataLoader worker process was killed by a signal.",
        choose=_by_signal,
    ),
    _p(
        "GD606",
        r"Unexpected bus error encountered in worker\. This might be caused by insufficient shared memory",
        "A DataLoader worker hit a bus error writing a batch to shared memory (/dev/shm), which is full: "
        "Docker gives containers 64 MB of it by default, less than a few batches of images.",
        hint=_SHM_HINT,
    ),
    _p(
        "GD606",
        r"DataLoader worker \(pids?(?:\(s\))? (?P<pid>[\d, ]+)\) exited unexpectedly",
        "The DataLoader worker with pid {pid} stopped without a Python error, so the cause is lost with it: "
        "most often it ran out of memory (the kernel's OOM killer), out of shared memory (/dev/shm), or "
        "native code in the dataset or its transforms crashed.",
        hint="Run once with `num_workers=0`: the same code then runs in the main process and fails there "
        "with a real traceback. If it then works, the workers lack memory: fewer `num_workers`, a lower "
        "`prefetch_factor`, more shared memory (Docker `--shm-size=8g`).",
    ),
    _p(
        "GD606",
        r"DataLoader timed out after (?P<s>[\d.]+) seconds",
        "No DataLoader worker delivered a batch within the {s} s `timeout`: a worker hangs (a deadlock "
        "of a thread pool started before the workers were forked, such as OpenCV's or a tokenizer's, or "
        "a lock held at fork time) or reading one batch is slower than the timeout (network storage).",
        hint="Start the workers with `multiprocessing_context='spawn'` (or call `cv2.setNumThreads(0)`, "
        "`TOKENIZERS_PARALLELISM=false`); if the data is merely slow, raise `timeout` or leave it at 0 "
        "(no limit).",
    ),
]
