"""`--fix` rewrites, as before/after pairs (`fix/NAME.in.py` -> `fix/NAME.out.py`), run through the real CLI."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIX = Path(__file__).parent / "rewrites"
PAIRS = sorted(p.name[: -len(".in.py")] for p in FIX.glob("*.in.py"))


@pytest.mark.parametrize("name", PAIRS)
def test_fix_pair(name, lint_cli):
    target = lint_cli.path / "train.py"
    shutil.copy(FIX / f"{name}.in.py", target)
    ran = lint_cli("--fix", "train.py")
    assert ran.returncode in (0, 1), ran.stderr
    assert target.read_text() == (FIX / f"{name}.out.py").read_text()
    # The fixed file is stable: a second --fix changes nothing more.
    lint_cli("--fix", "train.py")
    assert target.read_text() == (FIX / f"{name}.out.py").read_text()


def test_fixed_findings_are_not_reported(lint_cli):
    shutil.copy(FIX / "item_backward.in.py", lint_cli.path / "train.py")
    ran = lint_cli("--fix", "train.py")
    assert ran.returncode == 0, ran.stdout
    assert "GD101" not in ran.stdout


def test_diff_shows_and_changes_nothing(lint_cli):
    target = lint_cli.path / "train.py"
    shutil.copy(FIX / "total_item.in.py", target)
    ran = lint_cli("--fix", "--diff", "train.py")
    assert "-        total_loss += loss\n" in ran.stdout
    assert "+        total_loss += loss.item()\n" in ran.stdout
    assert target.read_text() == (FIX / "total_item.in.py").read_text()
    assert ran.returncode == 1  # the problem is still there


@pytest.mark.parametrize("broken,why", [
    ("total_loss += loss)", "would not compile"),  # the rewrite breaks the syntax
    ("total_loss += loss ", "1 more GD207 finding"),  # the rewrite leaves the problem where it was
    ("total_loss += loss.item().backward()", "1 more GD101 finding"),  # the rewrite makes a new problem
])
def test_a_rewrite_that_is_not_proven_is_not_written(tmp_path, monkeypatch, capsys, broken, why):
    # lint cannot run the program: it proves a rewrite by checking the rewritten file again before writing it.
    from graddoctor.cli import main
    from graddoctor.lint import rewrites

    monkeypatch.chdir(tmp_path)
    target = tmp_path / "train.py"
    shutil.copy(FIX / "total_item.in.py", target)
    original = target.read_text()
    monkeypatch.setattr(rewrites, "apply", lambda source, fixes: source.replace("total_loss += loss", broken))
    assert main(["lint", "--fix", "train.py"]) == 1
    err = capsys.readouterr().err
    assert "train.py: not fixed: " in err and why in err, err
    assert target.read_text() == original


_ACCUMULATION = '''import torch
from torch import nn

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
accum_steps = 4
loader = [(torch.randn(16, 32), torch.randint(0, 10, (16,))) for _ in range(32)]
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward()
    if (i + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
'''


def test_fix_never_rewrites_what_is_backpropagated(lint_cli):
    # GD212's remedy, `(loss / accum_steps).backward()`, changes the step size: lint only hints it
    # (`graddoctor fix --verify` can run the program to show the edit is right).
    target = lint_cli.path / "train.py"
    target.write_text(_ACCUMULATION)
    ran = lint_cli("--fix", "train.py")
    assert "GD212" in ran.stdout and "(loss / accum_steps).backward()" in ran.stdout  # the hint
    assert ran.returncode == 1
    assert target.read_text() == _ACCUMULATION
