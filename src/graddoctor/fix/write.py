"""`--write`: put the edits on disk, all files or none.

Every file is checked first (unchanged since the run read it, writable); only then is
anything written, each file through a temporary file renamed over it, so a reader never
sees half a file.
"""

from __future__ import annotations

import hashlib
import os
import tempfile

from graddoctor.editing.plan import FileEdit


class WriteRefused(Exception):
    """A one-line reason why nothing was written."""


def write_all(files: list[FileEdit]) -> None:
    for f in files:
        try:
            with open(f.path, "rb") as handle:
                now = hashlib.sha256(handle.read()).hexdigest()
        except OSError as exc:
            raise WriteRefused(f"cannot read {f.shown}: {exc.strerror}; nothing written") from None
        if now != f.digest or f.stale:
            raise WriteRefused(f"{f.shown} changed since graddoctor ran it; nothing written (run graddoctor fix again)")
        # No write bit at all is the owner saying "read-only", which even root respects here.
        if not os.stat(f.path).st_mode & 0o222:
            raise WriteRefused(f"cannot write {f.shown}: the file is read-only; nothing written")
        if not os.access(f.path, os.W_OK) or not os.access(os.path.dirname(f.path), os.W_OK):
            raise WriteRefused(f"cannot write {f.shown}: permission denied; nothing written")
    for f in files:
        _replace(f.path, f.after)


def _replace(path: str, text: str) -> None:
    mode = os.stat(path).st_mode
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".graddoctor-", suffix=".py")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
