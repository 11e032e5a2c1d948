"""Ctrl-C and SIGTERM during `graddoctor run` (SPEC section 1).

The first SIGINT stops the script as Python would (KeyboardInterrupt in the main
thread); SIGTERM (a scheduler or a CI timeout ending the job) stops it the same way,
with `Terminated`, where Python would die without a word. Either way the report of
what was observed so far is then printed and written, and the exit code is 128 + the
signal (130, 143). A second signal while the report is being made aborts at once:
the user asked twice, and so does any signal once the script has ended.

Under torchrun, SIGTERM is torchrun's way of ending the ranks once one has failed, and
the distributed exit (runner/gather.py) handles it: only SIGINT is taken there.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

from graddoctor.exits import EXIT_SIGINT, EXIT_SIGTERM


class Terminated(BaseException):
    """Raised in the user's script on SIGTERM; a BaseException, so `except Exception` lets it pass."""


class Interrupts:
    """Installs the handlers for the duration of a run and its report; restores the previous ones."""

    def __init__(self, *, sigterm: bool = True) -> None:
        self.received: int | None = None  # the first signal, once one came
        self._signals = (signal.SIGINT, signal.SIGTERM) if sigterm else (signal.SIGINT,)
        self._script_running = True
        self._previous: dict[int, object] = {}

    def script_ended(self) -> None:
        """From now on the report is being made: a signal stops at once."""
        self._script_running = False

    def __enter__(self) -> "Interrupts":
        for signum in self._signals:
            try:
                self._previous[signum] = signal.signal(signum, self._handle)
            except (ValueError, OSError):  # not the main thread, or a platform without it
                pass
        return self

    def __exit__(self, *exc_info) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.received is not None or not self._script_running:
            # A second signal, or one while the report is made: stop now, without the report.
            sys.stderr.write("\ngraddoctor: interrupted again, stopping without a report\n")
            sys.stderr.flush()
            os._exit(EXIT_SIGINT if signum == signal.SIGINT else EXIT_SIGTERM)
        self.received = signum
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated
