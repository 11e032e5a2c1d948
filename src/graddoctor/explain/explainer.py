"""`explain()`: an exception or message in, findings with cause, fix and user line out."""

from __future__ import annotations

import traceback as tb_module

from graddoctor.explain.patterns import match
from graddoctor.explain.tracebacks import parse
from graddoctor.finding import Finding, Related
from graddoctor.locate import Location, traceback_user_location
from graddoctor.rules import make


def explain(exc_or_message: BaseException | str) -> list[Finding]:
    """Explain a PyTorch error: its cause, the fix, and, when known, the user's line.

    Takes an exception (its traceback gives the line) or a message, with or
    without the traceback text around it. Returns no finding for a message it
    does not recognise: it does not guess.

    >>> import graddoctor
    >>> [f.code for f in graddoctor.explain("'float' object has no attribute 'backward'")]
    ['GD101']
    >>> graddoctor.explain("CUDA error: device-side assert triggered")
    []
    """
    if isinstance(exc_or_message, BaseException):
        exc = exc_or_message
        return explain_parts(type(exc).__name__, str(exc), traceback_user_location(exc.__traceback__))
    parsed = parse(exc_or_message)
    return explain_parts(parsed.exc_type, parsed.message, parsed.user_location)


def explain_parts(exc_type: str | None, message: str, where: Location | None) -> list[Finding]:
    source = where.source if where is not None and where.file else ""
    found = match(exc_type, message, source)
    if found is None:
        return []
    pattern, groups = found
    cause = pattern.cause.format(**groups)
    fields = where.shown() if where is not None and where.file else {}
    related: list[Related] = []
    return [make(pattern.code, cause, hint=pattern.hint, related=related, **fields)]


def format_exception_only(exc: BaseException) -> str:
    return "".join(tb_module.format_exception_only(type(exc), exc)).strip()
