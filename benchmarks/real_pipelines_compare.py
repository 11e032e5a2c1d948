"""What the benchmark compares between the plain and the instrumented run.

Losses: the number that follows the word "loss" (or another word the
configuration names, such as "reward") on each printed line, in order; times
and throughput on the same line are not taken. Checkpoints: every tensor in
the saved files, bit for bit; other files byte for byte.
"""

from __future__ import annotations

import re
from pathlib import Path
import sys
from typing import Any, Iterator, Optional

import torch

_NUMBER = r"([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)"


def loss_numbers(text: str, words: tuple = ("loss",)) -> list:
    """The numbers printed right after each of `words`, line by line (progress-bar redraws split too)."""
    pattern = re.compile(r"(?:" + "|".join(words) + r")[\w ]{0,12}?[\s:=(]{1,4}" + _NUMBER, re.IGNORECASE)
    found = []
    for line in re.split(r"[\r\n]+", text):
        found += [m.group(1) for m in pattern.finditer(line)]
    return found


def _tensors(obj: Any, prefix: str = "") -> Iterator:
    if isinstance(obj, torch.Tensor):
        yield prefix, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _tensors(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _tensors(v, f"{prefix}[{i}]")
    elif hasattr(obj, "state_dict") and callable(obj.state_dict):
        yield from _tensors(obj.state_dict(), prefix)


def _load(path: Path, import_root: Optional[Path]) -> Any:
    """torch.load, with the script's folder importable: a whole pickled model needs its classes."""
    if import_root is not None:
        sys.path.insert(0, str(import_root))
    try:
        return torch.load(path, map_location="cpu", weights_only=False)
    finally:
        if import_root is not None:
            sys.path.remove(str(import_root))


def _same_tensors(a: Path, b: Path, import_root: Optional[Path]) -> str:
    ta = dict(_tensors(_load(a, import_root)))
    tb = dict(_tensors(_load(b, import_root)))
    if ta.keys() != tb.keys():
        return f"{a.name}: different tensors saved"
    differ = [k for k in ta if ta[k].shape != tb[k].shape or ta[k].dtype != tb[k].dtype
              or not torch.equal(ta[k], tb[k]) and not (ta[k].is_floating_point()
                                                       and torch.equal(ta[k].isnan(), tb[k].isnan())
                                                       and torch.equal(ta[k].nan_to_num(), tb[k].nan_to_num()))]
    if differ:
        return f"{a.name}: {len(differ)} of {len(ta)} tensors differ ({differ[0]})"
    return "" if ta else f"{a.name}: no tensor saved"


# a torch.save file may differ in bytes (pickled object ids, file names) while every tensor is equal
_TORCH_SAVED = (".pt", ".pth", ".ckpt", ".bin", ".tar", ".model", ".pkl")


def compare_artifacts(plain: Path, doctor: Path, import_root: Optional[Path] = None) -> tuple:
    """(what differs, "" when every saved tensor matches; notes on files whose bytes alone differ)."""
    files_a = sorted(p.relative_to(plain) for p in plain.rglob("*") if p.is_file()) if plain.exists() else []
    files_b = sorted(p.relative_to(doctor) for p in doctor.rglob("*") if p.is_file()) if doctor.exists() else []
    if files_a != files_b and len(files_a) == len(files_b) == 1:
        # one file each, named differently (fast_neural_style puts the time in the name): compare the two
        return _compare_pairs([(plain / files_a[0], doctor / files_b[0], files_a[0])], import_root)
    if files_a != files_b:
        return f"saved files differ: {sorted(set(map(str, files_a)) ^ set(map(str, files_b)))}", ""
    if not files_a:
        return "nothing saved", ""
    return _compare_pairs([(plain / rel, doctor / rel, rel) for rel in files_a], import_root)


def _compare_pairs(pairs: list, import_root: Optional[Path]) -> tuple:
    problems, notes = [], []
    for a, b, rel in pairs:
        problem = "" if a.read_bytes() == b.read_bytes() else f"{rel}: bytes differ"
        if problem and a.suffix in _TORCH_SAVED:
            try:
                problem = _same_tensors(a, b, import_root)
                if not problem:
                    notes.append(f"{rel}: bytes differ, every tensor equal")
            except Exception as exc:  # not loadable here: the bytes decide
                problem += f" (and cannot be loaded: {type(exc).__name__}: {exc})"
        if problem:
            problems.append(problem)
    return "; ".join(problems), "; ".join(notes)
