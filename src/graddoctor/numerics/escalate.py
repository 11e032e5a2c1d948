"""Escalation: ask for deep (provenance) recording of the next step after a symptom.

The always-on observers only see cheap symptoms (a NaN in a fused norm); the
op that produced it is found by recording one step deeply. Deep recording is
the job of another observer; when none is registered, asking is a no-op, so
the cheap observers never depend on it.
"""

from __future__ import annotations

from graddoctor.locate import Location


def request_deep(session, reason: str, where: Location | None = None) -> bool:
    """Ask every observer that can record deeply to do so for the next step.

    Observers opt in by defining `on_deep_request(reason, where)`. Returns
    whether any observer accepted.
    """
    accepted = False
    for observer in getattr(session, "observers", ()):
        hook = getattr(observer, "on_deep_request", None)
        if hook is None or getattr(observer, "_graddoctor_failed", False):
            continue
        try:
            accepted = bool(hook(reason, where)) or accepted
        except Exception:  # a failing deep observer must not stop the cheap ones
            observer._graddoctor_failed = True
    return accepted
