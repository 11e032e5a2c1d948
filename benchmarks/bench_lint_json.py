"""`lint --format json` against `lint --format text` (and `json --diff`, which plans every edit) on one large file.

The file is training code with a finding that has an edit in every function (a loop without
`zero_grad()`, GD201), about 30,000 lines by default: the case where planning an edit per
finding used to cost more than the lint itself (issue 31: 98 s instead of 2 s). Each command
runs through the real CLI in its own process, best of N rounds.

Run: `python benchmarks/bench_lint_json.py` (BENCH_JSON_LINES sets the size, BENCH_JSON_ROUNDS the rounds).
With transformers installed, its first 400 `models/*/modeling_*.py` files are timed the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LINES = int(os.environ.get("BENCH_JSON_LINES", "30000"))
ROUNDS = int(os.environ.get("BENCH_JSON_ROUNDS", "3"))

_FUNCTION = '''

def train_{k}(model, loader, criterion, epochs=3):
    """Train for a few epochs (variant {k})."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        total = 0.0
        for x, y in loader:
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {{epoch}}: {{total / len(loader):.4f}}")
    return model
'''


def big_file(folder: Path) -> Path:
    parts = ["import torch\n"]
    k = 0
    while sum(p.count("\n") for p in parts) < LINES:
        parts.append(_FUNCTION.format(k=k))
        k += 1
    path = folder / "train_big.py"
    path.write_text("".join(parts))
    return path


def best(argv: list[str]) -> float:
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "graddoctor", "lint", "--isolated", "--jobs", "1", *argv],
                       capture_output=True, text=True)
        times.append(time.perf_counter() - start)
    return min(times)


def row(name: str, paths: list[str]) -> None:
    text = best(["--format", "text", *paths])
    json_ = best(["--format", "json", *paths])
    sarif = best(["--format", "sarif", *paths])
    diff = best(["--format", "json", "--diff", *paths])
    print(f"| {name} | {text:.2f} s | {json_:.2f} s ({json_ / text:.2f}x) | {sarif:.2f} s ({sarif / text:.2f}x) "
          f"| {diff:.2f} s ({diff / text:.2f}x) |", flush=True)


def main() -> None:
    print("| files | text | json | sarif | json --diff (plans every edit) |")
    print("| --- | --- | --- | --- | --- |", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = big_file(Path(tmp))
        row(f"one file, {path.read_text().count(chr(10))} lines", [str(path)])
    try:
        import transformers
    except ImportError:
        return
    models = sorted(Path(transformers.__file__).parent.glob("models/*/modeling_*.py"))[:400]
    row(f"transformers, {len(models)} files", [str(p) for p in models])


if __name__ == "__main__":
    main()
