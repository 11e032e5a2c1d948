"""`graddoctor explain` on the seed errors, as messages and as whole tracebacks."""

from __future__ import annotations

import pytest
import torch

import graddoctor


def _raise(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - we want torch's real exception
        return exc
    raise AssertionError("did not raise")


def test_real_torch_errors_are_recognised():
    m = torch.nn.Linear(3, 2)
    cases = {
        "GD101": lambda: m(torch.randn(2, 3)).sum().item().backward(),
        "GD102": lambda: m(torch.randn(2, 3)).detach().sum().backward(),
        "GD103": lambda: m(torch.randn(2, 3)).backward(),
    }
    for code, fn in cases.items():
        exc = _raise(fn)
        findings = graddoctor.explain(exc)
        assert [f.code for f in findings] == [code], (code, exc)
        assert findings[0].file.endswith("test_explain_seed.py")


def test_unknown_message_is_not_guessed():
    assert graddoctor.explain("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR") == []


TRACEBACK = """Traceback (most recent call last):
  File "/home/me/project/train.py", line 42, in <module>
    loss.backward()
  File "/usr/lib/python3.11/site-packages/torch/_tensor.py", line 625, in backward
    torch.autograd.backward(
  File "/usr/lib/python3.11/site-packages/torch/autograd/__init__.py", line 354, in backward
    _engine_run_backward(
RuntimeError: grad can be implicitly created only for scalar outputs
"""


def test_traceback_on_stdin_names_the_users_line(graddoctor_cli):
    ran = graddoctor_cli("explain", "--format", "json", stdin=TRACEBACK)
    assert ran.returncode == 0, ran.stderr
    import json

    report = json.loads(ran.stdout)
    assert report["command"] == "explain"
    assert "status" not in report and "layers" not in report
    [finding] = report["findings"]
    assert (finding["code"], finding["file"], finding["line"]) == ("GD103", "/home/me/project/train.py", 42)


@pytest.mark.parametrize("message, code", [
    ("'float' object has no attribute 'backward'", "GD101"),
    ("AttributeError: 'NoneType' object has no attribute 'zero_'", "GD104"),
    ("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn", "GD102"),
])
def test_explain_message_argument(graddoctor_cli, message, code):
    ran = graddoctor_cli("explain", message)
    assert ran.returncode == 0
    assert code in ran.stdout and "hint:" in ran.stdout


def test_explain_unknown_exits_1(graddoctor_cli):
    ran = graddoctor_cli("explain", "something odd happened")
    assert ran.returncode == 1
    assert "does not recognise" in ran.stdout
