"""`lint_cli`: run `graddoctor lint ...` in-process (the real argv path through graddoctor.cli.main).

Lint never touches torch state, so in-process runs are faithful and spare each
test the second of `import torch` a subprocess costs; a few black-box tests in
test_cli.py still run the real `python -m graddoctor`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from graddoctor.cli import main


@dataclass
class Linted:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def lint_cli(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")

    def run(*args: str) -> Linted:
        capsys.readouterr()
        try:
            rc = main(["lint", *args])
        except SystemExit as exc:  # argparse's usage errors exit, as they do on the command line
            rc = exc.code
        out = capsys.readouterr()
        return Linted(rc, out.out, out.err)

    run.path = tmp_path
    return run
