"""Every autograd error PyTorch raises for the catalogue's failure modes, explained.

Each case triggers the real error with real torch (so a changed message in a
new torch release fails here), explains it, and checks the code. The CLI test
feeds the real traceback text to `graddoctor explain` on stdin.
"""

from __future__ import annotations

import traceback

import pytest
import torch
from torch import nn

import graddoctor


def _raise(code: str) -> BaseException:
    w = torch.randn(3, requires_grad=True)
    namespace = {"torch": torch, "nn": nn, "w": w}
    try:
        exec(compile(code, "train.py", "exec"), namespace)
    except Exception as exc:  # the error under test
        return exc
    raise AssertionError(f"no error from {code!r}")


CASES = [
    ("GD101", "loss = (w * 2).sum().item()\nloss.backward()"),
    ("GD101", "loss = float((w * 2).sum())\nloss.backward()"),
    ("GD102", "torch.ones(3).sum().backward()"),
    ("GD102", "(w * 2).sum().detach().backward()"),
    ("GD102", "torch.autograd.grad((w * 2).sum(), [torch.ones(3)])"),
    ("GD102", "(w * 2).numpy()"),
    ("GD102", "torch.ones(3).register_hook(lambda g: g)"),
    ("GD102", "(w * 2).requires_grad_(False)"),
    ("GD103", "(w * 2).backward()"),
    ("GD103", "(w * 2).sum().backward(torch.ones(2))"),
    ("GD104", "torch.autograd.grad((w * 2).sum(), [w, torch.ones(2, requires_grad=True)])"),
    ("GD104", "torch.optim.SGD([w * 2], lr=0.1)"),
    ("GD104", "p = nn.Linear(2, 2)\np.weight.grad.zero_()"),
    ("GD107", "h = torch.tanh(w)\nh.sum().backward()\nh.sum().backward()"),
    ("GD108", "h = torch.sigmoid(w)\nh.mul_(2)\nh.sum().backward()"),
    ("GD108", "a, b, c = (w * 2).split(1)\na.mul_(2)"),
    ("GD108", "x = w * 2\nwith torch.no_grad():\n    v = x[0:2]\nv.mul_(2)"),
    ("GD109", "w.add_(1)"),
    ("GD109", "w[0:2].add_(1)"),
    ("GD112", "with torch.inference_mode():\n    c = torch.ones(3)\n(w * c).sum().backward()"),
    ("GD112", "with torch.inference_mode():\n    c = torch.ones(3)\nc.add_(1)"),
    ("GD302", "x = torch.tensor([-1.0], requires_grad=True)\nwith torch.autograd.detect_anomaly():\n    torch.sqrt(x).sum().backward()"),
    ("GD209", "s = torch.amp.GradScaler('cpu')\no = torch.optim.SGD([w], lr=0.1)\ns.scale((w * 2).sum()).backward()\ns.unscale_(o)\ns.unscale_(o)"),
]


@pytest.mark.parametrize("code,snippet", CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)])
def test_real_error_is_explained_with_its_code(code, snippet):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exc = _raise(snippet)
    found = graddoctor.explain(exc)
    assert [f.code for f in found] == [code], f"{type(exc).__name__}: {exc}"
    # the user's line is the failing line of the snippet
    assert found[0].file == "train.py"
    assert found[0].line == len(snippet.splitlines()) or code in ("GD302", "GD209", "GD108")
    assert found[0].hint


def test_unknown_message_is_not_guessed():
    assert graddoctor.explain("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR") == []
    assert graddoctor.explain("AttributeError: 'NoneType' object has no attribute 'encode'") == []


def test_none_attribute_on_a_line_without_grad_is_not_claimed(tmp_path):
    script = tmp_path / "user.py"
    script.write_text("cfg = None\nprint(cfg.zero_)\n")
    text = (
        "Traceback (most recent call last):\n"
        f'  File "{script}", line 2, in <module>\n'
        "    print(cfg.zero_)\n"
        "AttributeError: 'NoneType' object has no attribute 'zero_'\n"
    )
    assert graddoctor.explain(text) == []


def test_explain_cli_reads_a_traceback_on_stdin_and_names_the_user_line(graddoctor_cli):
    script = "import torch\nw = torch.randn(3, requires_grad=True)\nh = torch.sigmoid(w)\nh.mul_(2)\nh.sum().backward()\n"
    (graddoctor_cli.path / "train.py").write_text(script)
    exc = _raise("h = torch.sigmoid(w)\nh.mul_(2)\nh.sum().backward()")
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    tb = tb.replace('File "train.py", line 3', f'File "{graddoctor_cli.path / "train.py"}", line 5')
    ran = graddoctor_cli("explain", "--format", "json", stdin=tb)
    assert ran.returncode == 0, ran.stderr
    import json

    report = json.loads(ran.stdout)
    (finding,) = report["findings"]
    assert finding["code"] == "GD108"
    assert (finding["file"], finding["line"]) == ("train.py", 5)
    assert "[3]" in finding["message"] and "Sigmoid" in finding["message"]


def test_explain_cli_unknown_message_exits_1(graddoctor_cli):
    ran = graddoctor_cli("explain", "RuntimeError: the flux capacitor needs 1.21 gigawatts")
    assert ran.returncode == 1
    assert "does not recognise" in ran.stdout


@pytest.mark.parametrize("code", ["GD101", "GD107", "GD109", "GD112"])
def test_explain_cli_text_from_a_real_traceback(graddoctor_cli, code):
    snippet = next(s for c, s in CASES if c == code)
    (graddoctor_cli.path / "train.py").write_text(snippet + "\n")
    exc = _raise(snippet)
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    ran = graddoctor_cli("explain", stdin=tb)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert code in ran.stdout
    assert f"train.py:{len(snippet.splitlines())}" in ran.stdout
