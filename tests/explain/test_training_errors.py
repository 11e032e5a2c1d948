"""GD601-GD605: the commonest training errors, raised for real by small training programs.

Each program in programs/ is a real script (a model, a data loop) with one
mistake; the line marked `# raises` is where Python stops. For each: the real
error, raised here with torch, is explained with the right code; `graddoctor
explain` given the real traceback on stdin names the code and the user's line;
and `graddoctor run` reports the finding at that line, with what it saw (the
layer, shapes, dtypes, devices, label range) in the message.
"""

from __future__ import annotations

import json
import re
import runpy
import shutil
import traceback
from pathlib import Path

import pytest
import torch

import graddoctor

PROGRAMS = Path(__file__).parent / "programs"

# program -> (code, what the run's message must say: facts only a live run can see)
CASES = {
    "gd601_linear_in_features": ("GD601", ["`head`", "in_features=144", "shape (16, 256)"]),
    "gd601_sequence_batch": ("GD601", ["96 predictions but 8 targets", "target of shape (8, 12)"]),
    "gd601_bce_target_shape": ("GD601", ["input of shape (32, 1)", "target of shape (32,)"]),
    "gd601_target_column": ("GD601", ["target of shape (16, 1), int64"]),
    "gd602_numpy_float64": ("GD602", ["`body.0`", "float32 weights", "float64"]),
    "gd602_float_labels": ("GD602", ["dtype Float", "target of shape (16,), float32"]),
    "gd602_integer_parameter": ("GD602", ["integer"]),
    "gd603_meta_model": ("GD603", ["`fc1` (Linear) has its parameters on meta; its input is on cpu"]),
    "gd604_labels_from_one": ("GD604", ["3 classes", "labels run from 1 to 3", "numbered from 1"]),
    "gd604_embedding_pad_id": ("GD604", ["`embed` has num_embeddings=8", "ids run from 0 to 8"]),
    "gd605_generator_used_up": ("GD605", ["`params` is a `parameters()` generator that was already read"]),
    "gd605_tensor_as_weight": ("GD605", ["`weight`", "Linear(in_features=4"]),
}


def _marked_line(path: Path) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if text.rstrip().endswith("# raises"))


def _raise(path: Path) -> BaseException:
    try:
        runpy.run_path(str(path), run_name="__main__")
    except Exception as exc:  # the program's real error
        return exc
    raise AssertionError(f"{path.name} ran without error")


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_real_error_is_explained_at_the_users_line(name, capsys):
    code, facts = CASES[name]
    path = PROGRAMS / f"{name}.py"
    exc = _raise(path)
    capsys.readouterr()
    found = graddoctor.explain(exc)
    assert [f.code for f in found] == [code], f"{type(exc).__name__}: {exc}"
    assert found[0].line == _marked_line(path) and found[0].file.endswith(f"{name}.py")
    for fact in facts:
        assert fact in found[0].message, found[0].message
    # the message alone, as `explain "..."` gets it: same code, no invented facts
    (bare,) = graddoctor.explain(f"{type(exc).__name__}: {exc}")
    assert bare.code == code and bare.file is None and "this batch" not in bare.message


@pytest.mark.parametrize("name", ["gd601_linear_in_features", "gd602_float_labels", "gd603_meta_model",
                                  "gd604_labels_from_one", "gd605_generator_used_up"])
def test_explain_cli_reads_the_real_traceback(graddoctor_cli, name, capsys):
    code, _ = CASES[name]
    script = graddoctor_cli.path / "train.py"
    shutil.copy(PROGRAMS / f"{name}.py", script)
    exc = _raise(script)
    capsys.readouterr()
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    ran = graddoctor_cli("explain", stdin=text)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert f"error {code}" in ran.stdout
    assert f"train.py:{_marked_line(script)}" in ran.stdout
    assert "hint:" in ran.stdout
    as_json = graddoctor_cli("explain", "--format", "json", f"{type(exc).__name__}: {exc}")
    assert as_json.returncode == 0
    assert [f["code"] for f in json.loads(as_json.stdout)["findings"]] == [code]


@pytest.mark.slow  # a `graddoctor run` subprocess per case
@pytest.mark.parametrize("name", sorted(CASES))
def test_run_reports_the_finding_at_the_users_line(graddoctor_cli, name):
    code, facts = CASES[name]
    shutil.copy(PROGRAMS / f"{name}.py", graddoctor_cli.path / "train.py")
    ran = graddoctor_cli("run", "train.py")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert ran.report["status"] == "crashed"
    finding = ran.finding(code)
    assert (finding["file"], finding["line"]) == ("train.py", _marked_line(graddoctor_cli.path / "train.py"))
    for fact in facts:
        assert fact in finding["message"]
    assert [f["code"] for f in ran.report["findings"]] == [code], ran.codes()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the CUDA device-mismatch text needs a GPU")
def test_run_on_a_gpu_names_the_batch_left_on_the_cpu(graddoctor_cli):
    shutil.copy(PROGRAMS / "gd603_cuda_batch_on_cpu.py", graddoctor_cli.path / "train.py")
    ran = graddoctor_cli("run", "train.py")
    finding = ran.finding("GD603")
    assert finding["line"] == _marked_line(graddoctor_cli.path / "train.py")
    assert "cuda:0" in finding["message"] and "its input is on cpu" in finding["message"]


def _library_strings() -> bytes:
    lib = Path(torch.__file__).parent / "lib"
    return b"".join(p.read_bytes() for p in lib.glob("libtorch_cpu.*"))


def test_gpu_only_texts_match_the_installed_torch():
    """The CUDA device-mismatch message cannot be raised without a GPU: its pieces are checked in the
    library, then the message they make is explained."""
    text = _library_strings()
    pieces = ["Expected all tensors to be on the same device, but got ", ", different from other tensors on ",
              " (when checking argument in method "]
    for piece in pieces:
        assert piece.encode() in text, piece
    message = (pieces[0] + "mat1 is on cpu" + pieces[1] + "cuda:0" + pieces[2] + "wrapper_CUDA_addmm)")
    (found,) = graddoctor.explain(f"RuntimeError: {message}")
    assert found.code == "GD603" and "`mat1` is on cpu, the others on cuda:0" in found.message


@pytest.mark.parametrize("message, code", [
    ("torch.AcceleratorError: CUDA error: device-side assert triggered\nCUDA kernel errors might be "
     "asynchronously reported at some other API call, so the stacktrace below might be incorrect.", "GD604"),
    ("RuntimeError: expected scalar type Long but found Float", "GD602"),  # torch 1.x wording
    ("RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same", "GD603"),
    ("RuntimeError: Input type (double) and bias type (float) should be the same", "GD602"),
])
def test_other_wordings(message, code):
    assert [f.code for f in graddoctor.explain(message)] == [code]


# --- near misses: what must stay silent --------------------------------------------------------


def test_unknown_training_error_stays_unrecognised(graddoctor_cli):
    ran = graddoctor_cli("explain", "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR")
    assert ran.returncode == 1 and "does not recognise" in ran.stdout
    assert graddoctor.explain("IndexError: list index out of range") == []


OPTIMIZER_BEFORE_TO = """
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = MLP()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # built before .to(device): fine in torch 2.x
model.to(device)
before = model.fc1.weight.detach().clone()
for _ in range(20):
    x, y = torch.randn(16, 8, device=device), torch.randint(0, 2, (16,), device=device)
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
assert not torch.equal(before, model.fc1.weight.detach())
"""

CORRECT_TARGETS = """
import torch
from torch import nn

model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(20):
    x = torch.randn(20, 5)
    y = torch.randint(0, 3, (20,))
    y[::7] = -100                                    # padding, ignored by the loss
    soft = torch.softmax(torch.randn(20, 3), 1)      # probability targets (distillation)
    out = model(x)
    loss = nn.functional.cross_entropy(out, y) + nn.functional.cross_entropy(out, soft)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.slow  # a `graddoctor run` subprocess per case
@pytest.mark.parametrize("script", [OPTIMIZER_BEFORE_TO, CORRECT_TARGETS], ids=["optimizer-before-to", "targets"])
def test_correct_programs_raise_nothing_and_get_no_finding(graddoctor_cli, script):
    ran = graddoctor_cli("run", "train.py", script=script)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.report["status"] == "completed"
    assert not [f for f in ran.report["findings"] if re.match(r"GD6", f["code"])]
    assert not [f for f in ran.report["findings"] if f["severity"] in ("error", "warning")], ran.codes()
