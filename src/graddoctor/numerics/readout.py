"""Read small device tensors back to the host without stalling the device.

A Readout is made in the step that reduced the statistics and read at a later
one (the observers drain readings at the next step): the user's step never
waits for graddoctor. On an accelerator the copy goes to pinned host memory
without blocking and is read once its event has completed; on CPU there is no
device to wait for, and the tensor itself is read when the values are asked
for, so the read-back path is the same on both.
"""

from __future__ import annotations

import torch


class Readout:
    def __init__(self, values: torch.Tensor) -> None:
        self._values: list[float] | None = None
        self._event = None
        if values.device.type == "cuda":
            host = torch.empty(values.shape, dtype=values.dtype, pin_memory=True)
            host.copy_(values, non_blocking=True)
            event = torch.cuda.Event()
            event.record()
            self._host, self._event = host, event
        else:
            self._host = values

    def ready(self) -> bool:
        """Whether `values()` can be read without waiting for the device."""
        return self._event is None or self._event.query()

    def values(self) -> list[float]:
        if self._values is None:
            if self._event is not None:
                self._event.synchronize()  # only when asked before it completed: at the end of a run
            self._values = self._host.tolist()
            self._host = self._event = None
        return self._values
