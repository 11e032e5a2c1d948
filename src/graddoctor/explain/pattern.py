"""One known error message: how to recognise it and what it means."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# Picks the cause and fix from the numbers and names in the message (a target index of 255 is a
# mask's pixel value, -1 an ignore label); returns (cause, hint), either None to keep the default.
Chooser = Callable[[dict[str, str]], tuple[str | None, str | None]]


@dataclass(frozen=True)
class ErrorPattern:
    code: str
    regex: re.Pattern
    cause: str  # what happened, in plain words; may use {groups}
    hint: str | None = None  # the fix when it differs from the rule's default
    exc_types: tuple[str, ...] = ()  # exception class names it applies to (empty: any)
    # Text the user's failing line must contain for the pattern to apply, when that line is known.
    source_has: str | None = None
    # What a live exception's frames can add (see evidence.py): "layer", "loss", "classes" ...
    topic: str | None = None
    choose: Chooser | None = None
    # Text the traceback around the message must contain (a frame of DataParallel, say); a pattern
    # with context applies only when the traceback shows it.
    context: re.Pattern | None = None


def pattern(code: str, regex: str, cause: str, hint: str | None = None, exc_types: tuple[str, ...] = (),
            source_has: str | None = None, topic: str | None = None, choose: Chooser | None = None,
            context: str | None = None) -> ErrorPattern:
    return ErrorPattern(code, re.compile(regex, re.S), cause, hint, exc_types, source_has, topic, choose,
                        re.compile(context) if context else None)
