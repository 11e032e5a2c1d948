"""Helpers for the loss-and-data tests: read what watch() found."""

from __future__ import annotations


def findings(w, code: str) -> list:
    return [f for f in w.report().findings if f.code == code]


def loud(w) -> list:
    """Errors and warnings, with graddoctor's own failures (which must never happen here)."""
    assert not w.session.internal_errors, w.session.internal_errors
    return [(f.code, f.line, f.message) for f in w.report().findings if f.severity >= 2]
