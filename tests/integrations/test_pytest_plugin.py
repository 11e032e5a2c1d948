"""The pytest plugin, run by real pytest sessions (pytester): fixture, marker, option, assertion."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from torch import nn

from graddoctor.integrations.pytest_plugin import assert_gradients_flow

pytest_plugins = ["pytester"]

LOOPS = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)
        self.aux = nn.Linear(8, 2)

    def forward(self, x, use_aux=False):
        h = torch.relu(self.body(x))
        return self.head(h) + (self.aux(h).sum(1, keepdim=True) if use_aux else 0)


def train(use_aux, steps=3):
    torch.manual_seed(0)
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(x, use_aux), y)
        loss.backward()  # <- backward
        opt.step()
    return net
"""


SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture
def project(pytester, monkeypatch):
    """A fresh project; its pytest runs in a subprocess (torch cannot be re-imported in-process)."""
    loops = pytester.makepyfile(loops=LOOPS)
    lines = loops.read_text().splitlines()
    pytester.backward_line = next(n for n, text in enumerate(lines, 1) if text.endswith("# <- backward"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([SRC, str(pytester.path)]))
    return pytester


def run(project, *args):
    return project.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=120)


@pytest.mark.slow  # a real pytest session in a fresh interpreter: ~5 s of CPU
def test_fixture_marker_and_assertion_in_a_real_pytest_session(project):
    """One pytest session over every use (a subprocess each costs seconds)."""
    project.makepyfile(
        test_report=f"""
        from loops import train

        def test_broken(graddoctor):
            train(use_aux=False)
            report = graddoctor.report()
            (finding,) = [f for f in report.findings if f.code == "GD104"]
            assert finding.subjects == ["net.aux.weight", "net.aux.bias"]
            assert finding.file.endswith("loops.py") and finding.line == {project.backward_line}
            assert report.steps_observed == 3

        def test_correct(graddoctor):
            train(use_aux=True)
            assert graddoctor.report().ok
        """,
        test_marker="""
        import pytest
        from loops import train

        @pytest.mark.graddoctor(fail_on="error")
        def test_broken_fails(graddoctor):
            train(use_aux=False)

        @pytest.mark.graddoctor(fail_on="error")
        def test_correct_passes(graddoctor):
            train(use_aux=True)
        """,
        test_hygiene="""
        import torch
        from loops import train
        from graddoctor.session import dispatch

        ORIGINAL = torch.autograd.backward

        def test_raises(graddoctor):
            train(use_aux=True, steps=1)
            raise RuntimeError("user failure")

        def test_after():
            assert dispatch.active_sessions() == []
            assert torch.autograd.backward is ORIGINAL
        """,
        test_flow="""
        import torch
        from torch import nn
        from graddoctor.integrations.pytest_plugin import assert_gradients_flow

        def test_cut(graddoctor):
            net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
            hidden = net[0](torch.randn(2, 4)).detach()
            graddoctor.assert_gradients_flow(net, net[1](hidden).mean())

        def test_flows():
            net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
            assert_gradients_flow(net, net(torch.randn(2, 4)).mean())
        """,
    )
    result = run(project, "-rA")
    result.assert_outcomes(passed=5, failed=3)
    result.stdout.fnmatch_lines([
        # the marker: a failure that names the finding, its line and its parameters
        "*graddoctor found 1 finding(s) at or above 'error':*",
        f"*loops.py:{project.backward_line}: GD104 parameter-without-gradient:*",
        "*parameters: net.aux.weight, net.aux.bias*",
    ])
    result.stdout.fnmatch_lines(["*AssertionError: gradients do not flow:*", "*parameters: net.0.weight, net.0.bias*"])
    result.stdout.fnmatch_lines(["*RuntimeError: user failure*"])
    summary = "\n".join(line for line in result.stdout.lines if line.startswith(("PASSED", "FAILED")))
    for name in ("test_report.py::test_broken", "test_report.py::test_correct", "test_marker.py::test_correct_passes",
                 "test_hygiene.py::test_after", "test_flow.py::test_flows"):
        assert f"PASSED {name}" in summary
    for name in ("test_marker.py::test_broken_fails", "test_hygiene.py::test_raises", "test_flow.py::test_cut"):
        assert f"FAILED {name}" in summary


@pytest.mark.slow  # a real pytest session in a fresh interpreter: ~5 s of CPU
def test_command_line_option_and_in_test_setting(project):
    project.makepyfile(
        test_train="""
        from loops import train

        def test_by_option(graddoctor):
            train(use_aux=False)

        def test_by_attribute(graddoctor):
            graddoctor.fail_on = "never"
            train(use_aux=False)
        """
    )
    result = run(project, "--graddoctor-fail-on=error")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*FAILED test_train.py::test_by_option*"])


# --- assert_gradients_flow directly, with torch as the oracle ---------------------------------


class TwoBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = nn.Linear(3, 3)

    def forward(self, x):
        return self.a(x).sum()


def test_assert_gradients_flow_names_the_parameters_and_torch_agrees():
    net = TwoBranch()
    loss = net(torch.randn(2, 3))
    with pytest.raises(AssertionError) as info:
        assert_gradients_flow(net, loss)
    text = str(info.value)
    assert "GD104" in text and "net.b.weight, net.b.bias" in text and "test_pytest_plugin.py" in text
    loss.backward()
    assert net.b.weight.grad is None and net.a.weight.grad is not None


def test_assert_gradients_flow_accepts_a_frozen_unused_branch():
    net = TwoBranch()
    net.b.requires_grad_(False)
    assert_gradients_flow(net, net(torch.randn(2, 3)))


def test_assert_gradients_flow_names_a_python_number_loss():
    net = TwoBranch()
    with pytest.raises(AssertionError, match="GD101"):
        assert_gradients_flow(net, net(torch.randn(2, 3)).item())
