"""graddoctor's own failures: recorded on the session, shown with the report, never the user's.

A failure of our bookkeeping inside the user's step (a hook, a patched torch function,
an observer) must not break the user's run, and must not vanish either: it goes to
`session.internal_errors`, which `graddoctor run` prints on stderr with "please report"
(exit 3) and `watch()` puts in the report's notes (report/build.py). Every broad
`except` in the package records here, re-raises, or is one of the few listed, with
their reason, in tests/robustness/test_no_silent_except.py.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def record_internal_error(sessions: Any, where: str) -> None:
    """Record the exception being handled as `where` failing; call it from an `except` block.

    `sessions`: the session, or the sessions that share a patch (each gets the record). The
    same failure again (a hook that fails at every step) is recorded once.
    """
    text = f"{where} failed:\n{traceback.format_exc()}"
    for session in sessions if isinstance(sessions, (list, tuple)) else (sessions,):
        if text not in session.internal_errors:
            session.internal_errors.append(text)


@contextmanager
def guarded(sessions: Any, where: str) -> Iterator[None]:
    """Run the block; an exception in it is recorded (see `record_internal_error`), not raised."""
    try:
        yield
    except Exception:
        record_internal_error(sessions, where)


def known_models(session: Any) -> dict:
    """`session.models()`, or no model (the failure recorded) when naming them failed.

    For the parts that only name things with the models (layer names, related lines):
    without them a finding says less, and the report is still made.
    """
    try:
        return session.models()
    except Exception:
        record_internal_error(session, "naming the models")
        return {}
