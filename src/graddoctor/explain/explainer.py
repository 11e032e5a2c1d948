"""`explain()`: an exception or message in, findings with cause, fix and user line out."""

from __future__ import annotations

import re
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
    >>> graddoctor.explain("I am not a PyTorch error")
    []
    """
    if isinstance(exc_or_message, BaseException):
        exc = exc_or_message
        where = traceback_user_location(exc.__traceback__)
        context = "".join(tb_module.format_tb(exc.__traceback__))
        found = explain_parts(type(exc).__name__, str(exc), where, exc.__traceback__, context=context)
        cause = exc.__cause__
        if found and cause is not None:
            return _prefer_the_cause(found, explain_parts(type(cause).__name__, str(cause), None))
        return found
    parsed = parse(exc_or_message)
    worker = _WORKER.search(exc_or_message)
    # A pasted DataLoader traceback ends with the worker's own error; the wrapper above it says where it ran.
    message = exc_or_message[worker.start():] if worker is not None else parsed.message
    found = explain_parts(parsed.exc_type, message, parsed.user_location, context=exc_or_message)
    before, chained, _ = exc_or_message.partition(_DIRECT_CAUSE)
    if found and chained and worker is None:
        earlier = parse(before)
        return _prefer_the_cause(found, explain_parts(earlier.exc_type, earlier.message, None))
    return found


_DIRECT_CAUSE = "The above exception was the direct cause of the following exception:"


def _prefer_the_cause(found: list[Finding], from_cause: list[Finding]) -> list[Finding]:
    """A wrapper raised `from` a more specific error of the same kind (DataLoader's "worker exited
    unexpectedly" from "killed by signal: Killed") is explained by that error, at the wrapper's line."""
    if len(found) != 1 or len(from_cause) != 1 or from_cause[0].code != found[0].code:
        return found
    return [found[0].with_(message=from_cause[0].message, hint=from_cause[0].hint)]


_WORKER = re.compile(r"Caught \w+ in DataLoader worker process \d+\.?\s*Original Traceback \(most recent call last\):")
# Said after each finding explained from inside a worker.
_IN_WORKER = (" It was raised in a DataLoader worker process (the dataset, its transforms or the collate "
              "function); with `num_workers=0` the traceback runs through your own code.")


def explain_parts(exc_type: str | None, message: str, where: Location | None,
                  tb: TracebackType | None = None, context: str = "") -> list[Finding]:
    worker = _WORKER.search(message)
    if worker is not None:
        # A DataLoader worker's error arrives wrapped: explain the original, and say where it ran.
        inner = parse("Traceback (most recent call last):" + message[worker.end():])
        found = explain_parts(inner.exc_type, inner.message, inner.user_location or where,
                              context=message[worker.end():])
        found = [finding.adding(_IN_WORKER) for finding in found]
        if found:
            return found
    source = where.source if where is not None and where.file else ""
    found = match(exc_type, message, source, context)
    if found is None:
        return []
    pattern, groups = found
    cause = _fill(pattern.cause, groups)
    hint = _fill(pattern.hint, groups) if pattern.hint else None
    if pattern.choose is not None:
        chosen_cause, chosen_hint = pattern.choose(groups)
        cause = chosen_cause or cause
        hint = chosen_hint or hint
    fields = where.shown() if where is not None and where.file else {}
    related: list[Related] = []
    subjects: list[str] = []
    if tb is not None and pattern.topic is not None:
        from graddoctor.explain.evidence import gather  # reads torch objects: only for live exceptions

        evidence = gather(pattern.topic, tb)
        cause = " ".join([cause, *evidence.facts])
        related, subjects = evidence.related, evidence.subjects
    # The measured fact: the error torch raised (its type and first line) is what the finding decides from.
    raised = {"exception": (exc_type or "").split(".")[-1], "error": message.strip().splitlines()[0][:200] if message.strip() else ""}
    return [make(pattern.code, cause, hint=hint, related=related, subjects=subjects, evidence=raised, **fields)]


class _Keep(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _fill(text: str, groups: dict[str, str]) -> str:
    """`text` with the message's groups filled in; a group the message lacked stays as written."""
    return string.Formatter().vformat(text, (), _Keep(groups))


def format_exception_only(exc: BaseException) -> str:
    return "".join(tb_module.format_exception_only(type(exc), exc)).strip()
