"""Grad-mode regions: where the user's `no_grad()` / `inference_mode()` blocks open and close.

A cut made inside a region is named by the region's entry line; torch's own no-grad work
(an optimizer step) opens a region that is not the user's, and cuts nothing of theirs.
"""

from __future__ import annotations

from graddoctor.provenance.frames import Region, find_region


class GradModeTracker:
    def __init__(self) -> None:
        self.region: Region | None = None  # the open grad-off region, if any
        self._shelved: list[Region | None] = []  # regions suspended by enable_grad()
        self.inference_regions: list[Region] = []

    def switch(self, before: bool, after: bool, frame) -> None:
        """`torch._C._set_grad_enabled` ran, from `before` to `after`."""
        closing = _closing(frame)
        if before and not after:
            if closing and self._shelved:
                self.region = self._shelved.pop()  # enable_grad() ends inside no_grad()
            else:
                self.region = find_region(frame)
        elif after and not before:
            region, self.region = self.region, None
            if region is None:
                return
            if not closing and region.user and len(self._shelved) < 16:
                self._shelved.append(region)  # enable_grad() inside the user's no_grad()
            else:
                region.close()

    def enter_inference(self, frame) -> None:
        region = find_region(frame)
        region.how = region.how.replace("torch.set_grad_enabled(False)", "torch.inference_mode()")
        self.inference_regions.append(region)

    def exit_inference(self) -> None:
        if self.inference_regions:
            self.inference_regions.pop().close()


def _closing(frame) -> bool:
    """Whether a grad-mode switch comes from leaving a context manager (its __exit__)."""
    while frame is not None and frame.f_code.co_filename.endswith(("grad_mode.py", "_contextlib.py")):
        if frame.f_code.co_name == "__exit__":
            return True
        frame = frame.f_back
    return False
