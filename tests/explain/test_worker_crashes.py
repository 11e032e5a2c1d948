"""DataLoader workers really killed (SIGKILL as the OOM killer sends it, SIGBUS as a full /dev/shm
raises it, a silent exit): torch's own message is explained as GD606, with the cause of that signal."""

from __future__ import annotations

import os
import signal
import sys

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

import graddoctor

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="workers are forked and signalled on Linux")


class _DiesInWorker(Dataset):
    def __init__(self, how: str):
        self.how = how

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> torch.Tensor:
        if self.how == "exit":
            os._exit(3)  # no Python error: a native library calling exit(), say
        os.kill(os.getpid(), getattr(signal, self.how))
        return torch.zeros(2)


def _crash(how: str) -> RuntimeError:
    loader = DataLoader(_DiesInWorker(how), batch_size=4, num_workers=1, timeout=20)
    with pytest.raises(RuntimeError) as raised:
        next(iter(loader))
    return raised.value


@pytest.mark.parametrize("how, words", [
    ("SIGKILL", ("killed by the operating system", "fewer workers")),
    ("SIGBUS", ("shared memory", "--shm-size")),
    ("SIGSEGV", ("native code", "num_workers=0")),
    ("exit", ("without a Python error", "num_workers=0")),
])
def test_a_dead_worker_is_explained_by_its_signal(how, words):
    error = _crash(how)
    (finding,) = graddoctor.explain(error)
    assert finding.code == "GD606", str(error)
    said = finding.message + " " + finding.hint
    for word in words:
        assert word in said, said


def test_a_worker_that_raises_is_not_gd606():
    class Raises(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            raise KeyError(i)

    with pytest.raises(KeyError) as raised:
        next(iter(DataLoader(Raises(), batch_size=2, num_workers=1)))
    assert [f.code for f in graddoctor.explain(raised.value)] != ["GD606"]


def test_a_pasted_chained_traceback_is_explained_by_the_signal_not_the_wrapper():
    pasted = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/site-packages/torch/utils/data/dataloader.py", line 1251, in _try_get_data\n'
        "    data = self._data_queue.get(timeout=timeout)\n"
        "RuntimeError: DataLoader worker (pid 4711) is killed by signal: Killed. \n\n"
        "The above exception was the direct cause of the following exception:\n\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in <module>\n'
        "    for images, labels in loader:\n"
        "RuntimeError: DataLoader worker (pid(s) 4711) exited unexpectedly\n"
    )
    (finding,) = graddoctor.explain(pasted)
    assert finding.code == "GD606"
    assert "killed by the operating system" in finding.message
    assert (finding.file, finding.line) == ("train.py", 40)
