"""Shared fixtures: real tiny models, and running the real `graddoctor` command."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent

# `make test` runs two xdist workers on 2 cores: with torch's default of one intra-op thread per
# core, each worker and each `graddoctor run` subprocess it starts would keep 2 threads busy, 4 or
# more on 2 cores. The tiny models here gain nothing from a second thread; they lose to the
# contention. One thread per process, inherited by the subprocesses through the environment.
os.environ.setdefault("OMP_NUM_THREADS", "1")
torch.set_num_threads(1)


# A test that starts a process (the `graddoctor` command, torchrun, a script under python) pays
# interpreter and torch start-up, seconds on these machines: such tests are marked slow wherever
# they are, so `make test-fast` stays fast without anyone remembering to mark them.
_STARTS_A_PROCESS = ("subprocess.", "sys.executable", "Popen(")


def _names_used(code) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_used(const)
    return names


def _starts_a_process(fn, depth: int = 0, seen: set | None = None) -> bool:
    """Whether `fn`, or a function of the test suite it calls (three calls deep), starts a process."""
    seen = set() if seen is None else seen
    fn = inspect.unwrap(fn)
    if fn in seen or not hasattr(fn, "__code__") or depth > 3:
        return False
    seen.add(fn)
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        return False
    if any(marker in source for marker in _STARTS_A_PROCESS):
        return True
    scope = getattr(fn, "__globals__", {})
    for name in _names_used(fn.__code__):
        called = scope.get(name)
        if callable(called) and getattr(called, "__module__", "").startswith("tests"):
            if _starts_a_process(getattr(called, "__init__", called) if inspect.isclass(called) else called,
                                 depth + 1, seen):
                return True
    return False


def pytest_collection_modifyitems(items):
    cache: dict = {}
    for item in items:
        if item.get_closest_marker("slow") or not hasattr(item, "function"):
            continue
        functions = [item.function]
        info = getattr(item, "_fixtureinfo", None)
        for defs in (info.name2fixturedefs.values() if info else ()):
            functions += [d.func for d in defs if getattr(d.func, "__module__", "").startswith("tests")]
        if "graddoctor_cli" in item.fixturenames or any(
            cache.setdefault(f, _starts_a_process(f)) for f in functions
        ):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _seed_and_threads():
    torch.manual_seed(0)
    yield


class Ran:
    def __init__(self, proc: subprocess.CompletedProcess, json_path: Path | None):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.report = json.loads(json_path.read_text()) if json_path and json_path.exists() else None

    def codes(self) -> list[str]:
        return sorted({f["code"] for f in self.report["findings"]}) if self.report else []

    def finding(self, code: str) -> dict:
        found = [f for f in self.report["findings"] if f["code"] == code]
        assert found, f"no {code} in {self.codes()}:\n{self.stdout}\n{self.stderr}"
        return found[0]


@pytest.fixture
def graddoctor_cli(tmp_path):
    """Run the real `python -m graddoctor ...` in tmp_path; returns a Ran."""

    def run(*args: str, script: str | None = None, name: str = "train.py", json_report: bool = True,
            stdin: str | None = None, timeout: float = 120) -> Ran:
        if script is not None:
            (tmp_path / name).write_text(textwrap.dedent(script))
        json_path = None
        argv = list(args)
        if json_report and argv and argv[0] == "run":
            json_path = tmp_path / "report.json"
            argv = ["run", "--json", str(json_path)] + argv[1:]
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1", COLUMNS="100")
        proc = subprocess.run(
            [sys.executable, "-m", "graddoctor", *argv],
            cwd=tmp_path, capture_output=True, text=True, timeout=timeout, env=env, input=stdin,
        )
        return Ran(proc, json_path)

    run.path = tmp_path
    return run


@pytest.fixture
def snapshot():
    """Compare text with a stored snapshot file; a missing snapshot fails instead of being written.

    GRADDOCTOR_UPDATE_SNAPSHOTS=1 (re)writes the file, for a change meant to alter the output.
    """

    def check(text: str, path: Path) -> None:
        if os.environ.get("GRADDOCTOR_UPDATE_SNAPSHOTS") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        assert path.exists(), f"no snapshot {path}; write it with GRADDOCTOR_UPDATE_SNAPSHOTS=1 and review it"
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"output differs from {path} (GRADDOCTOR_UPDATE_SNAPSHOTS=1 rewrites it)"

    return check
