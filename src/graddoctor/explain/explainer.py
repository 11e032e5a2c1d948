"""`explain()`: an exception or message in, findings with cause, fix and user line out."""

from __future__ import annotations

import string
import traceback as tb_module
from types import TracebackType

from graddoctor.explain.patterns import match
from graddoctor.explain.tracebacks import parse
from graddoctor.finding import Finding, Related
from graddoctor.locate import Location, traceback_user_location
from graddoctor.rules import make


def explain(exc_or_message: BaseException | str) -> list[Finding]:
    """Explain a PyTorch error: its cause, the fix, and, when known, the user's line.

    Takes an exception (its traceback gives the line, and its frames the shapes,
    dtypes and devices involved) or a message, with or without the traceback
    text around it. Returns no finding for a message it does not recognise: it
    does not guess.

    >>> import graddoctor
    >>> [f.code for f in graddoctor.explain("'float' object has no attribute 'backward'")]
    ['GD101']
    >>> [f.code for f in graddoctor.explain("mat1 and mat2 shapes cannot be multiplied (32x128 and 64x10)")]
    ['GD601']
    >>> graddoctor.explain("CUDA out of memory. Tried to allocate 2.00 GiB")
    []
    """
    if isinstance(exc_or_message, BaseException):
        exc = exc_or_message
        where = traceback_user_location(exc.__traceback__)
        return explain_parts(type(exc).__name__, str(exc), where, exc.__traceback__)
    parsed = parse(exc_or_message)
    return explain_parts(parsed.exc_type, parsed.message, parsed.user_location)


def explain_parts(exc_type: str | None, message: str, where: Location | None,
                  tb: TracebackType | None = None) -> list[Finding]:
    source = where.source if where is not None and where.file else ""
    found = match(exc_type, message, source)
    if found is None:
        return []
    pattern, groups = found
    cause = _fill(pattern.cause, groups)
    hint = _fill(pattern.hint, groups) if pattern.hint else None
    fields = where.shown() if where is not None and where.file else {}
    related: list[Related] = []
    subjects: list[str] = []
    if tb is not None and pattern.topic is not None:
        from graddoctor.explain.evidence import gather  # reads torch objects: only for live exceptions

        evidence = gather(pattern.topic, tb)
        cause = " ".join([cause, *evidence.facts])
        related, subjects = evidence.related, evidence.subjects
    return [make(pattern.code, cause, hint=hint, related=related, subjects=subjects, **fields)]


class _Keep(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _fill(text: str, groups: dict[str, str]) -> str:
    """`text` with the message's groups filled in; a group the message lacked stays as written."""
    return string.Formatter().vformat(text, (), _Keep(groups))


def format_exception_only(exc: BaseException) -> str:
    return "".join(tb_module.format_exception_only(type(exc), exc)).strip()
