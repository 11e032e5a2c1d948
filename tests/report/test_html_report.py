"""`run --html` writes a page that a real browser renders: findings, source, the gradient-flow chart."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile

import pytest

SCRIPT = """
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
head = nn.Linear(4, 4)  # never used
optimizer = torch.optim.SGD(list(model.parameters()) + list(head.parameters()), lr=0.05)
x, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(6):
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
"""

pytestmark = pytest.mark.browser


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("headless Chromium is not installed (apt-get install -y chromium; .ci/run does it)")


def _browser(*args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    profile = tempfile.mkdtemp(prefix="graddoctor-chromium-")
    try:
        return subprocess.run(
            [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
             f"--user-data-dir={profile}", *args],
            capture_output=True, text=True, timeout=timeout,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def test_html_report_renders_in_headless_chromium(graddoctor_cli):
    browser = _chromium()
    ran = graddoctor_cli("run", "--html", "report.html", "train.py", script=SCRIPT)
    assert ran.returncode == 1, ran.stderr
    page = graddoctor_cli.path / "report.html"
    html = page.read_text()
    assert "<script" not in html and 'src="http' not in html and 'href="http' not in html  # self-contained

    dom = _browser("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = dom.stdout
    for code in ("GD201", "GD104"):
        assert f'data-code="{code}"' in text
    assert "optimizer.step()" in text  # the source excerpt of the GD201 line
    assert 'class="gradflow"' in text and "no gradient" in text  # the chart marks the unused head

    shot = graddoctor_cli.path / "shot.png"
    done = _browser("--window-size=1000,1400", f"--screenshot={shot}", page.as_uri())
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    from PIL import Image

    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20) or []
    # the red error border, the chart's blue bars: a rendered page, not a blank one
    assert any(r > 180 and g < 80 and b < 80 for _, (r, g, b) in colours), "no red (error) pixels rendered"
    assert any(b > 150 and r < 60 for _, (r, g, b) in colours), "no blue (chart) pixels rendered"
    assert browser


def test_code_spans_render_as_code_and_user_text_stays_escaped():
    from graddoctor.report.report import Report
    from graddoctor.rules import make

    finding = make("GD105", "`layers` holds <script>alert(1)</script> modules", hint="Use `nn.ModuleList`.")
    page = Report(command="run", target="t.py", findings=[finding]).to_html()
    assert "<code>layers</code> holds &lt;script&gt;alert(1)&lt;/script&gt; modules" in page
    assert "<code>nn.ModuleList</code>" in page
    assert "<script>alert" not in page


NAN_FROM_STEP_1 = """
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(4):
    optimizer.zero_grad()
    scale = torch.tensor(-1.0).sqrt()  # NaN from the first step
    loss = F.mse_loss(model(x) * scale, y)
    loss.backward()
    optimizer.step()
"""


def test_html_of_a_nan_from_step_one_run_renders_in_headless_chromium(graddoctor_cli):
    _chromium()
    ran = graddoctor_cli("run", "--html", "nan.html", "train.py", script=NAN_FROM_STEP_1)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "GD301" in ran.stdout  # the terminal report is there too
    assert [row["grad_norm"] for row in ran.report["layers"]] == ["nan", "nan"]  # said, not dropped
    page = graddoctor_cli.path / "nan.html"
    assert page.stat().st_size > 1000

    dom = _browser("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-code="GD301"' in dom.stdout
    # never finite: the chart says NaN in words, with the step, and draws no bar of NaN width
    assert re.search(r'class="nonfinite">NaN from step \d+</text>', dom.stdout), dom.stdout
    assert "<title>last finite" not in dom.stdout
    assert 'class="gradflow"' in dom.stdout and 'width="nan"' not in dom.stdout


NAN_IN_THE_LAST_STEPS = """
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(8):
    optimizer.zero_grad()
    scale = torch.tensor(-1.0).sqrt() if step >= 6 else torch.tensor(1.0)  # NaN in the last two steps
    loss = F.mse_loss(model(x) * scale, y)
    loss.backward()
    optimizer.step()
"""


def test_chart_of_a_run_that_ends_in_nan_shows_the_last_finite_norms_and_where_nan_began(graddoctor_cli):
    _chromium()
    ran = graddoctor_cli("run", "--html", "nan.html", "train.py", script=NAN_IN_THE_LAST_STEPS)
    assert [row["grad_norm"] for row in ran.report["layers"]] == ["nan", "nan"]  # the JSON still says NaN
    first_nan = ran.finding("GD301")["step"]
    page = graddoctor_cli.path / "nan.html"
    dom = _browser("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    svg = dom.stdout[dom.stdout.index('class="gradflow"'):dom.stdout.index("</svg>")]
    # each layer: a bar of its last finite norm (a real width), and a mark from the step the loss became NaN
    lasts = re.findall(r'width="([0-9.]+)" height="6" fill="#1565c0"><title>last finite ([0-9.e+-]+)</title>', svg)
    assert len(lasts) == 2 and all(float(width) > 0 and float(value) > 0 for width, value in lasts), svg
    assert svg.count(f'class="nonfinite">NaN from step {first_nan}</text>') == 2, svg
    assert "nan gradient" not in svg and 'width="nan"' not in svg
    assert f"nan (from step {first_nan}; last finite" in dom.stdout  # the table says both too

    shot = graddoctor_cli.path / "nan.png"
    done = _browser("--window-size=900,700", f"--screenshot={shot}", page.as_uri())
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    from PIL import Image

    chart = Image.open(shot).convert("RGB")
    colours = chart.getcolors(maxcolors=1 << 20) or []
    assert any(b > 150 and r < 60 for _, (r, g, b) in colours), "no blue bars rendered on a NaN run"
