"""Fuzzing: whatever the text, lint returns findings and never raises.

Two generators: arbitrary text (mostly GD000), and corpus programs with lines
deleted, duplicated, swapped or cut, which stay parseable often enough to drive
the analysis through odd shapes. Bounded to a few seconds.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graddoctor.finding import Finding
from graddoctor.lint import lint_source

CORPUS = [p.read_text() for p in sorted((Path(__file__).parent / "corpus").glob("*.py"))]
FIXTURES = [p.read_text() for p in sorted((Path(__file__).parent / "fixtures").glob("*.py"))]
SOURCES = CORPUS + FIXTURES
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


def _check(source) -> None:
    result = lint_source(source, "fuzz.py")
    assert all(isinstance(f, Finding) and f.code.startswith("GD") for f in result.findings)
    for f in result.findings:
        assert f.line is None or f.line >= 1


@FAST
@given(st.text(max_size=400))
def test_arbitrary_text(text):
    _check(text)


@FAST
@given(st.binary(max_size=300))
def test_arbitrary_bytes(data):
    _check(data)


@st.composite
def mutated_program(draw):
    lines = draw(st.sampled_from(SOURCES)).splitlines()
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "cut", "dedent", "insert"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif op == "dedent":
            lines[i] = lines[i].lstrip()
        else:
            lines.insert(i, draw(st.sampled_from([
                "    optimizer.zero_grad()", "    loss.backward()", "    optimizer.step()", "    scheduler.step()",
                "with torch.no_grad():", "    total += loss", "    torch.nn.utils.clip_grad_norm_(p, 1.0)",
                "    x.item().backward()", "class M(nn.Module):", "    self.l = [nn.Linear(1, 1)]",
                "    value, loss = loss.item(), loss", "    loss, value = step(model, x)", "    pred = (out > 0).float() - y",
            ])))
    return "\n".join(lines) + "\n"


@FAST
@given(mutated_program())
def test_mutated_programs(source):
    _check(source)


# --- The loss path (analysis/values.py, calls.py, returns.py) on generated loss expressions.
#
# An expression over `out` (the model's output, with a graph) and `y` (data) is built
# from elementwise steps, cuts and two-operand arithmetic, with its truth known by
# construction: whether the value still has a graph. Two properties:
# - soundness: a loss that has a graph is never called cut (GD102) or a number (GD101);
# - the same loss written inline, in a helper function, or in a method returning a
#   tuple that the caller unpacks, gets the same verdict (the helper is followed).

_KEEP = ["({}).mean()", "torch.sigmoid({})", "({}).softmax(1)", "({}) * 0.5", "({}).abs()", "({}).pow(2)"]
_CUT = ["({}).detach()", "torch.round({})", "({}).argmax(1).float()", "({}).long().float()", "(({}) > 0).float()"]


@st.composite
def loss_expression(draw, depth: int = 0):
    """(source text, has a graph, mentions out)."""
    choice = draw(st.sampled_from(["out", "y", "keep", "cut", "binary"] if depth < 3 else ["out", "y"]))
    if choice == "out":
        return "out", True, True
    if choice == "y":
        return "y", False, False
    if choice == "binary":
        left = draw(loss_expression(depth + 1))
        right = draw(loss_expression(depth + 1))
        op = draw(st.sampled_from(["-", "*", "+"]))
        return f"({left[0]} {op} {right[0]})", left[1] or right[1], left[2] or right[2]
    inner = draw(loss_expression(depth + 1))
    template = draw(st.sampled_from(_KEEP if choice == "keep" else _CUT))
    return template.format(inner[0]), inner[1] and choice == "keep", inner[2]


def _inline(expr: str) -> str:
    return (
        "import torch\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        out = model(x)\n"
        f"        loss = ({expr}).mean()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
    )


def _helper(expr: str) -> str:
    return (
        "import torch\n"
        "def compute_loss(model, x, y):\n"
        "    out = model(x)\n"
        f"    return ({expr}).mean()\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = compute_loss(model, x, y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
    )


def _method_tuple(expr: str) -> str:
    return (
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    def compute(self, x, y):\n"
        "        out = self.model(x)\n"
        f"        loss = ({expr}).mean()\n"
        "        return loss.detach().item(), loss\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            value, loss = self.compute(x, y)\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
    )


def _codes(source: str) -> set[str]:
    return {f.code for f in lint_source(source, "fuzz.py").findings if f.code in ("GD101", "GD102")}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(loss_expression())
def test_loss_path_is_sound_and_followed_into_helpers(generated):
    expr, has_graph, _ = generated
    inline, helper, method = _codes(_inline(expr)), _codes(_helper(expr)), _codes(_method_tuple(expr))
    if has_graph:
        assert inline == helper == method == set(), expr
    assert inline == helper == method, (expr, inline, helper, method)


def _single_path(draw, depth: int = 0) -> tuple[str, bool]:
    """An expression where `out` reaches the loss along one path only, the other operands being data."""
    kind = draw(st.sampled_from(["keep", "data-side"] if depth < 3 else ["out"]))
    if kind == "out":
        return "out", True
    inner, graph = _single_path(draw, depth + 1)
    if kind == "data-side":
        op = draw(st.sampled_from(["-", "*", "+"]))
        return (f"({inner} {op} y)" if draw(st.booleans()) else f"(y {op} {inner})"), graph
    return draw(st.sampled_from(_KEEP)).format(inner), graph


@st.composite
def cut_on_the_only_path(draw):
    """`out` through elementwise steps and data-side arithmetic, one cut somewhere on the way."""
    inner, _ = _single_path(draw)
    cut = draw(st.sampled_from(_CUT)).format(inner)
    for _ in range(draw(st.integers(0, 2))):
        step = draw(st.sampled_from(["keep", "data-side"]))
        cut = draw(st.sampled_from(_KEEP)).format(cut) if step == "keep" else f"({cut} - y)"
    return cut


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(cut_on_the_only_path())
def test_a_cut_on_the_only_path_to_the_loss_is_found(expr):
    for source in (_inline(expr), _helper(expr), _method_tuple(expr)):
        assert "GD102" in _codes(source), (expr, source)
