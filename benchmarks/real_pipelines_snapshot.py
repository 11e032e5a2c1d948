"""A repository snapshot as a plain tree: used as is, or exported from a git directory.

A stored snapshot may lack its largest blobs (data files); those are skipped,
as the benchmark makes its own synthetic data.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def as_tree(path: Path, dest: Path) -> Path:
    path = path.resolve()
    if not _is_git_dir(path):
        return path
    listing = subprocess.run(["git", "--git-dir", str(path), "ls-tree", "-r", "HEAD"], capture_output=True,
                             text=True, check=True).stdout
    blobs = []
    for line in listing.splitlines():
        meta, name = line.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and mode != "120000":
            blobs.append((mode, sha, name))
    cat = subprocess.Popen(["git", "--git-dir", str(path), "cat-file", "--batch"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)
    assert cat.stdin is not None and cat.stdout is not None
    for mode, sha, name in blobs:
        cat.stdin.write(sha.encode() + b"\n")
        cat.stdin.flush()
        header = cat.stdout.readline().split()
        if header[-1] == b"missing":
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if mode == "100755":
            os.chmod(target, 0o755)
    cat.stdin.close()
    cat.wait()
    return dest
