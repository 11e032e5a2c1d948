"""pytest plugin: the `graddoctor` fixture and `assert_gradients_flow`.

Installed with graddoctor (entry point `pytest11`), so any test can ask for it:

    def test_training_learns(graddoctor):
        train(model, steps=5)
        assert graddoctor.report().ok

    def test_every_layer_gets_gradients(model, batch):
        loss = model(batch).sum()
        assert_gradients_flow(model, loss)   # from graddoctor.integrations.pytest_plugin

The fixture watches the whole test like `graddoctor.watch()` (standard observers,
watch mode) and detaches when the test ends, however it ends. A test fails on
findings at or above `fail_on`: `@pytest.mark.graddoctor(fail_on="error")`, the
`--graddoctor-fail-on` option (or `graddoctor_fail_on` ini value), or
`graddoctor.fail_on = "warning"` inside the test. The default is "never".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from graddoctor.finding import FAIL_ON

if TYPE_CHECKING:
    from graddoctor.report.report import Report

_KEY = pytest.StashKey["GradDoctorFixture"]()


def assert_gradients_flow(model, loss, optimizer=None) -> None:
    """Assert that `loss.backward()` would give every trainable parameter of `model` a gradient.

    Runs `graddoctor.diagnose(loss, model, optimizer)` (no backward pass is
    run). Raises AssertionError naming the parameters that get no gradient
    and why, with the line of the cause and the fix, for every error finding.
    """
    from graddoctor.finding import Severity
    from graddoctor.observers.diagnose import diagnose

    __tracebackhide__ = True
    report = diagnose(loss, model, optimizer)
    errors = [f for f in report.findings if f.severity >= Severity.ERROR]
    if errors:
        raise AssertionError("gradients do not flow:\n" + "\n".join(_describe(f) for f in errors))


def _describe(finding) -> str:
    where = f"{finding.file}:{finding.line}: " if finding.file else ""
    text = f"  {where}{finding.code} {finding.name}: {finding.message}"
    if finding.subjects:
        text += f"\n    parameters: {', '.join(finding.subjects)}"
    if finding.hint:
        text += f"\n    hint: {finding.hint}"
    return text


class GradDoctorFixture:
    """What the `graddoctor` fixture gives a test: a watched session and its report."""

    def __init__(self, fail_on: str) -> None:
        from graddoctor.integrations.core import WatchedRun

        self.fail_on = fail_on
        self._run: WatchedRun | None = WatchedRun(target=None, models=None).attach()
        self._report: Report | None = None

    def report(self) -> "Report":
        """Stop watching and return the report (later calls return the same report)."""
        return self.finish()

    def finish(self, exc: BaseException | None = None) -> "Report":
        if self._report is None:
            run, self._run = self._run, None  # let the test's models go with the session
            self._report = run.finish(exc)
        return self._report

    @staticmethod
    def assert_gradients_flow(model, loss, optimizer=None) -> None:
        __tracebackhide__ = True
        assert_gradients_flow(model, loss, optimizer)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("graddoctor")
    group.addoption(
        "--graddoctor-fail-on", choices=FAIL_ON, default=None,
        help="fail tests that use the graddoctor fixture on findings at or above this severity (default: never)",
    )
    parser.addini("graddoctor_fail_on", "default of --graddoctor-fail-on", default="never")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", 'graddoctor(fail_on="error"): fail the test on graddoctor findings at or above this severity'
    )


@pytest.fixture
def graddoctor(request: pytest.FixtureRequest):
    """Watch this test's training with graddoctor; `.report()` gives the findings."""
    fixture = GradDoctorFixture(_fail_on(request))
    request.node.stash[_KEY] = fixture
    try:
        yield fixture
    finally:
        fixture.finish()  # detach even when the test failed
        del request.node.stash[_KEY]


def _fail_on(request: pytest.FixtureRequest) -> str:
    marker = request.node.get_closest_marker("graddoctor")
    value = marker.kwargs.get("fail_on") if marker else None
    value = value or request.config.getoption("--graddoctor-fail-on") or request.config.getini("graddoctor_fail_on")
    if value not in FAIL_ON:
        raise pytest.UsageError(f"graddoctor fail_on must be one of {', '.join(FAIL_ON)}, got {value!r}")
    return value


# An old-style wrapper: the plugin loads in every pytest session of every user, so it
# must not need a recent pluggy (`wrapper=True` needs pluggy 1.2).
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """After the test body: fail the test (not its teardown) on findings at `fail_on`."""
    outcome = yield
    if outcome.excinfo is not None:
        return
    message = _failure(item)
    if message is None:
        return
    try:
        pytest.fail(message, pytrace=False)
    except pytest.fail.Exception as exc:
        force = getattr(outcome, "force_exception", None)
        if force is None:
            raise
        force(exc)


def _failure(item: pytest.Item) -> str | None:
    fixture = item.stash.get(_KEY, None)
    if fixture is None or fixture.fail_on == "never":
        return None
    report = fixture.report()
    if not report.fails(fixture.fail_on):
        return None
    from graddoctor.finding import Severity

    worst = [f for f in report.findings if f.severity >= Severity.parse(fixture.fail_on)]
    return (
        f"graddoctor found {len(worst)} finding(s) at or above {fixture.fail_on!r}:\n"
        + "\n".join(_describe(f) for f in worst)
    )
