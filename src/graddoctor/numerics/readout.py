"""Read small device tensors back to the host without stalling the device.

On CPU a value is read at once. On an accelerator the copy goes to pinned host
memory without blocking and is read at the next step, once its event has
completed, so the user's step never waits for graddoctor.
"""

from __future__ import annotations

import torch


class Readout:
    def __init__(self, values: torch.Tensor) -> None:
        if values.device.type == "cuda":
            host = torch.empty(values.shape, dtype=values.dtype, pin_memory=True)
            host.copy_(values, non_blocking=True)
            event = torch.cuda.Event()
            event.record()
            self._host, self._event, self._values = host, event, None
        else:
            self._host, self._event, self._values = None, None, values.tolist()

    def ready(self) -> bool:
        return self._event is None or self._event.query()

    def values(self) -> list[float]:
        if self._values is None:
            self._event.synchronize()
            self._values = self._host.tolist()
            self._host = self._event = None
        return self._values
