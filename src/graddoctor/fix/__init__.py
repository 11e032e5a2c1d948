"""`graddoctor fix`: the edits of the user's source that findings call for, proven by a re-run.

An edit is written per code (`edits/gdNNN_*.py`, found by discovery) on a concrete
syntax tree (libcst), so comments and formatting survive. `plan.py` turns findings
into edits, `verify.py` re-runs the edited program, `write.py` puts verified edits
on disk. libcst is an optional dependency (`graddoctor[fix]`).
"""

from __future__ import annotations

from graddoctor.extras import install_command


class FixUnavailable(Exception):
    """libcst is not installed: `graddoctor fix` and `lint --fix` cannot edit code."""


def require_libcst() -> None:
    try:
        import libcst  # noqa: F401
    except ImportError:
        raise FixUnavailable(f"libcst is needed to edit code: {install_command('fix')}") from None
